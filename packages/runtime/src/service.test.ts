import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// runService ends processes, so it is tested on real ones: service.fixture.ts (with the runtime's
// sources, compiled by TypeScript) as a child process, under dist/ so that prom-client resolves.
const SRC = import.meta.dirname;
let dir: string;
let fixture: string;

beforeAll(() => {
  mkdirSync(join(SRC, '../dist'), { recursive: true });
  dir = mkdtempSync(join(SRC, '../dist/.service-fixture-'));
  for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(SRC, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
    });
    writeFileSync(join(dir, file.replace(/\.ts$/, '.js')), outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  fixture = join(dir, 'service.fixture.js');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Run = { code: Promise<number | null>; output(): string; stdoutLines(): string[]; signal(sig: NodeJS.Signals): void; waitFor(text: string): Promise<void> };

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [fixture], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (!stdout.includes(w.text)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), check()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return {
    code,
    output: () => stdout + stderr,
    stdoutLines: () => stdout.split('\n').filter(Boolean),
    signal: (sig) => child.kill(sig),
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ text, resolve });
        check();
        void code.then((c) => reject(new Error(`exited (${c}) before printing ${text}:\n${stdout}${stderr}`)));
      }),
  };
}

const logLines = (r: Run) => r.stdoutLines().filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string; module: string; exit_code?: number });

describe('runService()', () => {
  it('a config error: exit 2, every bad variable named on stderr, nothing started', async () => {
    const r = run({ FIXTURE_ROUNDS: '11', METRICS_PORT: 'x' });
    expect(await r.code).toBe(2);
    expect(r.output()).toContain('fixture: invalid configuration');
    expect(r.output()).toContain('FIXTURE_ROUNDS="11" is invalid: out of range; expected an integer in [1, 10]');
    expect(r.output()).toContain('METRICS_PORT="x" is invalid: not an integer');
    expect(r.output()).not.toContain('fixture started');
  });

  it('SIGTERM: stop called once, exit 0', async () => {
    const r = run({});
    await r.waitFor('fixture started');
    expect(logLines(r).find((l) => l.msg === 'metrics listening')).toMatchObject({ module: 'fixture', level: 'info' });
    r.signal('SIGTERM');
    expect(await r.code).toBe(0);
    expect(r.stdoutLines().filter((l) => l === 'stop called')).toHaveLength(1);
    expect(logLines(r).map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    expect(logLines(r).find((l) => l.msg === 'stopped')?.exit_code).toBe(0);
  });

  it.each([
    ['a failure after start: logged as an error', 'fail-after-start', ['consumer gone for good', 'topic deleted']],
    ['a rejection nobody handles: logged as an error with its cause', 'reject-after-start', ['unhandled rejection', 'x is not a function']],
  ] as const)('%s, stop called once, exit 1', async (_what, mode, logged) => {
    const r = run({ FIXTURE_MODE: mode });
    expect(await r.code).toBe(1);
    const error = r.stdoutLines().find((l) => l.includes('"level":"error"')) ?? '';
    for (const text of logged) expect(error).toContain(text);
    expect(r.stdoutLines().filter((l) => l === 'stop called')).toHaveLength(1);
    expect(logLines(r).find((l) => l.msg === 'stopped')?.exit_code).toBe(1);
  });

  it('start throwing: "<name> failed to start" with the error, exit 1', async () => {
    const r = run({ FIXTURE_MODE: 'throw-in-start' });
    expect(await r.code).toBe(1);
    const error = r.stdoutLines().find((l) => l.includes('"level":"error"')) ?? '';
    expect(error).toContain('fixture failed to start');
    expect(error).toContain('cannot reach the thing');
    expect(r.output()).not.toContain('stop called');
  });
});

describe('runService() with workers', () => {
  const until = async (what: string, done: () => boolean, r: Run) => {
    for (const deadline = Date.now() + 20_000; !done(); await new Promise((res) => setTimeout(res, 50))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${r.output()}`);
    }
  };
  const starts = (r: Run) => logLines(r).filter((l) => l.msg === 'fixture started') as unknown as { pid: number; worker: number }[];
  const summedStarts = async (port: number) => /^fixture_starts_total\{[^}]*\} (\d+)$/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1];

  it('two processes share the metrics port and /metrics sums them; a worker killed is replaced; SIGTERM stops each once, exit 0', async () => {
    const r = run({ FIXTURE_WORKERS: '2' });
    await until('two workers', () => starts(r).length === 2, r);
    const [a, b] = starts(r);
    expect(a.pid).not.toBe(b.pid);
    expect([a.worker, b.worker].sort()).toEqual([1, 2]);
    const ports = new Set(logLines(r).filter((l) => l.msg === 'metrics listening').map((l) => (l as unknown as { port: number }).port));
    expect(ports.size).toBe(1);
    const [port] = ports;
    // Whichever worker answers, the count is both workers' starts.
    for (let i = 0; i < 6; i++) expect(await summedStarts(port)).toBe('2');

    process.kill(a.pid, 'SIGKILL');
    await until('a replacement', () => starts(r).length === 3, r);
    expect(starts(r)[2].pid).not.toBe(a.pid);
    expect(logLines(r).find((l) => l.msg === 'a worker died; starting another')).toMatchObject({ level: 'error' });
    for (let i = 0; i < 6; i++) expect(await summedStarts(port)).toBe('2');

    r.signal('SIGTERM');
    expect(await r.code).toBe(0);
    expect(r.stdoutLines().filter((l) => l === 'stop called')).toHaveLength(2);
  });

  it('a worker that cannot start stops them all with its exit code; a config error exits 2 before any worker', async () => {
    const failing = run({ FIXTURE_WORKERS: '2', FIXTURE_MODE: 'throw-in-start' });
    expect(await failing.code).toBe(1);
    expect(logLines(failing).find((l) => l.msg === 'a worker failed to start; stopping the others')).toMatchObject({ level: 'error', exit_code: 1 });

    const misconfigured = run({ FIXTURE_WORKERS: '2', FIXTURE_ROUNDS: '11' });
    expect(await misconfigured.code).toBe(2);
    expect(misconfigured.output()).not.toContain('starting workers');
  });
});
