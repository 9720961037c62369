/**
 * The processes of one history lane: a fetcher over the lane's range (and the overlap), a decoder, a
 * writer and a tracer, on the lane's own topics, writing to the index's database. A process that dies
 * before its work is done (a crash, a kill -9) is started again: each resumes where it left off (the
 * fetcher's backfill checkpoint, the consumer groups' offsets, the tracer's saved state). Their pids are
 * kept in a file, so a backfill started again after its own kill stops the ones it left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@tonstream/runtime';
import type { Lane } from './plan.js';

export type LaneService = 'fetcher' | 'decoder' | 'writer' | 'tracer';
const SERVICES: readonly LaneService[] = ['fetcher', 'decoder', 'writer', 'tracer'];
/** Those that end by themselves once their part of the lane is done (exit 0). */
const FINITE: ReadonlySet<LaneService> = new Set(['fetcher', 'tracer']);
const RESTART_DELAY_MS = 1_000;

export type LaneProcesses = {
  /** Resolves when the fetcher and the tracer have exited 0 (the range published and traced). */
  readonly finished: Promise<void>;
  /** Runs the fetcher again over some seqnos of the lane (holes found by the gap check). */
  refetch(from: number, to: number): Promise<void>;
  stop(): Promise<void>;
  /** Restarts so far, per service (a kill, a crash). */
  restarts(): Record<LaneService, number>;
};

export type LaneOptions = {
  lane: Lane;
  overlap: number;
  /** Repository root: services/<name>/dist/main.js. */
  root: string;
  /** Logs and the pid file of the lane go to `<logDir>/<lane prefix>/`. */
  logDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
};

function laneEnv(service: LaneService, o: LaneOptions, range?: { from: number; to: number }): Record<string, string> {
  const common = { KAFKA_TOPIC_PREFIX: o.lane.prefix, METRICS_PORT: '0', LEASE: 'off' };
  switch (service) {
    case 'fetcher': {
      const r = range ?? { from: o.lane.from, to: o.lane.to + o.overlap };
      return { ...common, FETCHER_FROM_SEQNO: String(r.from), FETCHER_TO_SEQNO: String(r.to) };
    }
    case 'writer':
      // The hot tier holds the newest facts, which a backfill never writes; the live writers keep the watermarks.
      return { ...common, HOT_TIER: 'off', WRITER_WATERMARKS: 'off' };
    case 'tracer':
      return { ...common, TRACER_LANE: `${o.lane.from}..${o.lane.to}`, TRACER_LANE_OVERLAP: String(o.overlap) };
    default:
      return common;
  }
}

/** Stops the processes a previous run of this lane left behind (its pid file), if they still run a service. */
function stopLeftovers(pidFile: string, logger: Logger): void {
  if (!existsSync(pidFile)) return;
  for (const pid of readFileSync(pidFile, 'utf8').split('\n').map((line) => Number(line.split(' ')[1])).filter((n) => n > 0)) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone
    }
    if (!/services\/\w+\/dist\/main\.js/.test(cmdline)) continue;
    logger.warn('stopping a process a previous backfill run left', { pid });
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

export function startLane(o: LaneOptions): LaneProcesses {
  const dir = join(o.logDir, o.lane.prefix.replace(/[^\w.-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  const pidFile = join(dir, 'pids');
  stopLeftovers(pidFile, o.logger);
  const running = new Map<LaneService | 'refetch', ChildProcess>();
  const restarts: Record<LaneService, number> = { fetcher: 0, decoder: 0, writer: 0, tracer: 0 };
  let stopping = false;
  /** `<service> <pid>` per line. */
  const savePids = () => writeFileSync(pidFile, [...running].map(([name, c]) => `${name} ${c.pid ?? 0}`).join('\n'));

  const spawnService = (service: LaneService, env: Record<string, string>, label: LaneService | 'refetch' = service, args: string[] = []): ChildProcess => {
    const log = createWriteStream(join(dir, `${label}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [join(o.root, 'services', service, 'dist', 'main.js'), ...args], { cwd: o.root, env: { ...o.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('exit', () => log.end());
    running.set(label, child);
    savePids();
    return child;
  };

  /** Runs `service` until it exits 0 (finite ones) or the lane stops, starting it again after any other exit. */
  const supervise = (service: LaneService) =>
    new Promise<void>((resolve) => {
      const run = () => {
        const child = spawnService(service, laneEnv(service, o));
        child.once('exit', (code, signal) => {
          running.delete(service);
          savePids();
          if (stopping) return resolve();
          if (code === 0 && FINITE.has(service)) return resolve();
          restarts[service]++;
          o.logger.warn('a lane process exited: starting it again', { lane: `${o.lane.from}..${o.lane.to}`, service, code, signal });
          setTimeout(() => (stopping ? resolve() : run()), RESTART_DELAY_MS);
        });
      };
      run();
    });

  const all = SERVICES.map((s) => [s, supervise(s)] as const);
  const finished = Promise.all(all.filter(([s]) => FINITE.has(s)).map(([, p]) => p)).then(() => undefined);

  return {
    finished,
    async refetch(from, to) {
      for (;;) {
        // --reset: a range fetched before has a checkpoint at its end, which would make this run publish nothing.
        const child = spawnService('fetcher', laneEnv('fetcher', o, { from, to }), 'refetch', ['--reset']);
        const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
        running.delete('refetch');
        if (code === 0 || stopping) return;
        await new Promise((r) => setTimeout(r, RESTART_DELAY_MS));
      }
    },
    async stop() {
      stopping = true;
      const exits = [...running.values()].map((c) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve()))));
      for (const c of running.values()) c.kill('SIGTERM');
      await Promise.all(exits);
      await Promise.all(all.map(([, p]) => p));
      savePids();
    },
    restarts: () => ({ ...restarts }),
  };
}
