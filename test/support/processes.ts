import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { recordTopicPrefix } from './kafka-topics.js';

/** Repository root (the folder whose package.json declares the workspaces), for `services/<name>/dist/main.js`. */
export const ROOT = findRoot(import.meta.dirname);

function findRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && 'workspaces' in JSON.parse(readFileSync(pkg, 'utf8'))) return dir;
  }
  throw new Error(`no workspace root above ${from}`);
}

export type ServiceProcess = {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when a line of output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGKILL: no cleanup, like a crash. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(timeoutMs?: number): Promise<number | null>;
};

/**
 * Starts a built service (`services/<name>/dist/main.js`) as a real process, so tests can crash it
 * with SIGKILL. Output is kept in memory and written to `<logDir>/<name>.log`.
 */
export function startService(name: string, env: Record<string, string>, logDir: string, args: string[] = [], nodeArgs: string[] = []): ServiceProcess {
  mkdirSync(logDir, { recursive: true });
  recordTopicPrefix(env.KAFKA_TOPIC_PREFIX);
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, join(ROOT, 'services', name, 'dist', 'main.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    const s = chunk.toString('utf8');
    text += s;
    log.write(s);
    for (const w of [...waiters]) {
      const line = s.split('\n').find((l) => w.pattern.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('exit', () => log.end());

  return {
    name,
    child,
    output: () => text,
    waitFor(pattern, timeoutMs = 60_000) {
      const already = text.split('\n').find((l) => pattern.test(l));
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no output matching ${pattern} within ${timeoutMs} ms; last output:\n${text.slice(-2000)}`)), timeoutMs);
        waiters.push({ pattern, resolve: (l) => (clearTimeout(timer), resolve(l)) });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${code}) before printing ${pattern}; last output:\n${text.slice(-2000)}`));
        });
      });
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. Errors
 * from `check` count as "not yet"; `guard` runs before each attempt and its errors end the wait.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 500, guard?: () => void): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    guard?.();
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
