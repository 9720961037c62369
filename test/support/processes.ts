import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { recordTopicPrefix } from './kafka-topics.js';
import { createPortAllocator, reservableRange } from './ports.js';

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
  /** The exit code once the process has exited (null: a signal ended it). */
  exited(): Promise<number | null>;
  /** SIGKILL: no cleanup, like a crash. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(timeoutMs?: number): Promise<number | null>;
};

/**
 * What every service started here is given unless the caller says otherwise. A consumer killed with
 * SIGKILL keeps its partitions until its session times out, and the restarted process waits that long
 * for them: 10 s (the emulator's own default) rather than the 30 s of the other services.
 */
const SERVICE_DEFAULTS = { KAFKA_SESSION_TIMEOUT_MS: '10000' };

/**
 * Starts a built service (`services/<name>/dist/main.js`) as a real process, so tests can crash it
 * with SIGKILL. Output is kept in memory and written to `<logDir>/<name>.log`. `root`: the checkout
 * whose build runs (another release's, for a bench comparing the two).
 */
export function startService(name: string, env: Record<string, string>, logDir: string, args: string[] = [], nodeArgs: string[] = [], root = ROOT): ServiceProcess {
  mkdirSync(logDir, { recursive: true });
  recordTopicPrefix(env.KAFKA_TOPIC_PREFIX);
  const child = spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, join(root, 'services', name, 'dist', 'main.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...SERVICE_DEFAULTS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watchProcess(name, child, join(logDir, `${name}.log`));
}

/**
 * Follows a child spawned with piped stdout and stderr: keeps its output, appends it to `logPath`.
 * `waitFor` matches whole lines: each stream is split into lines by itself (a pipe delivers a line
 * in as many reads as it likes, and the two streams interleave), and text is decoded per stream so
 * a character split across reads stays whole. A last line without a newline counts once its stream
 * ends.
 */
export function watchProcess(name: string, child: ChildProcess, logPath: string): ServiceProcess {
  const log = createWriteStream(logPath, { flags: 'a' });
  let text = '';
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onLine = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.pattern.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (s: string) => {
      text += s;
      log.write(s);
      const parts = (partial + s).split('\n');
      partial = parts.pop()!;
      for (const line of parts) onLine(line);
    });
    stream.on('end', () => {
      if (partial !== '') onLine(partial);
      partial = '';
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // 'close' comes after the streams ended, so nothing printed before the exit is still unread.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  void closed.then(() => log.end());

  return {
    name,
    child,
    output: () => text,
    waitFor(pattern, timeoutMs = 60_000) {
      const already = lines.find((l) => pattern.test(l));
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no output matching ${pattern} within ${timeoutMs} ms; last output:\n${text.slice(-2000)}`)), timeoutMs);
        waiters.push({ pattern, resolve: (l) => (clearTimeout(timer), resolve(l)) });
        void closed.then((code) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${code}) before printing ${pattern}; last output:\n${text.slice(-2000)}`));
        });
      });
    },
    exited: () => exited,
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

const ports = createPortAllocator({ lockDir: join(tmpdir(), 'tonstream-test-ports'), range: reservableRange });

/**
 * A TCP port for a server a test starts, reserved for this process until it exits (see ports.ts):
 * no other call, suite or test process on the machine gets it, nor any outgoing connection.
 */
export function freePort(): Promise<number> {
  return ports.take();
}
