/**
 * The tracer stage of bench:pipeline. Traces need a contiguous chain whose messages connect (the
 * mainnet fixture blocks are scattered seqnos), so the local network makes one first: localnet with
 * generated traffic -> fetcher -> decoder onto fresh topics, until LOCALNET_STOP_AT_SEQNO and every
 * fetched block is decoded. Then the tracer alone on those topics (a catch-up: all of its input is
 * waiting in Kafka), its counters sampled every SAMPLE_MS: traces, actions and transactions per
 * second over the whole run (consumer group join to the last masterchain block saved: assembly,
 * classification, publish to ton.traces/ton.actions, Redis state) and over the steady state, which
 * leaves out the first STEADY_SKIP_FRACTION of the masterchain blocks (consumer start, first fetches,
 * JIT warm-up).
 *
 * Run alone: `node test/bench/dist/bench/tracer-stage.js` (after `npx tsc -b`) prints the stage's JSON
 * line. BENCH_TRACER_PREFIX names the topics; with BENCH_TRACER_REUSE_INPUT=1 the input already on
 * those topics is traced again (its consumer group is deleted first), and the topics are kept.
 * BENCH_PROFILE_DIR writes a V8 CPU profile of the tracer there.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createKafka } from '@tonstream/bus';
import { Redis } from 'ioredis';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

export type TracerStageOptions = {
  kafkaBrokers: string;
  redisUrl: string;
  /** Topic and Redis key prefix of this run. */
  prefix: string;
  mcBlocks: number;
  /** Actions the localnet traffic starts per round. */
  trafficRate: number;
  timeoutMs: number;
  /** The topics already hold this chain (a former run's input): trace it again without making it. */
  reuseInput?: boolean;
  /** Where to write the tracer's V8 CPU profile; unset: none. */
  profileDir?: string;
};

/** `cpu_s`: the tracer's CPU seconds; tx per CPU second is the figure a loaded machine disturbs least. */
type Rates = { seconds: number; transactions: number; traces: number; actions: number; traces_per_s: number; actions_per_s: number; tx_per_s: number; cpu_s: number; tx_per_cpu_s: number };

export type TracerStageResult = {
  mc_blocks: number;
  /** The tracer's last masterchain block when the stage ended (it may pass mc_blocks between two samples). */
  last_mc_seqno: number;
  /** From the consumer group join to the first masterchain block done: a catch-up first reads what its first fetches bring (up to 64 MB a partition). */
  startup_s: number;
  transactions: number;
  traces: number;
  incomplete_traces: number;
  actions: number;
  /** Whole run, startup included. */
  seconds: number;
  cpu_s: number;
  tx_per_cpu_s: number;
  traces_per_s: number;
  actions_per_s: number;
  tx_per_s: number;
  /** From the first sample past STEADY_SKIP_FRACTION of the blocks to the end. */
  steady: Rates & { from_mc_seqno: number };
  /** Seconds the localnet, fetcher and decoder took to make the input (not part of the stage); 0 when reused. */
  input_seconds: number;
};

/** How often the tracer's counters are read (one scrape each: the scrape costs the tracer CPU too). */
const SAMPLE_MS = 250;
const SAMPLED = ['tonstream_tracer_last_mc_seqno', 'tonstream_tracer_transactions_total', 'tonstream_tracer_traces_total', 'tonstream_tracer_actions_total', 'tonstream_process_cpu_seconds_total'] as const;
/** The share of masterchain blocks left out of the steady-state rates. */
const STEADY_SKIP_FRACTION = 0.2;

/** Counters or gauges of a service, each summed over its label sets, from one scrape. */
async function metrics<N extends string>(port: number, names: readonly N[]): Promise<Record<N, number>> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
  const out = Object.fromEntries(names.map((n) => [n, 0])) as Record<N, number>;
  for (const line of text.split('\n')) {
    for (const name of names) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) out[name] += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

async function metric(port: number, name: string): Promise<number> {
  return (await metrics(port, [name]))[name];
}

async function until(what: string, check: () => Promise<boolean>, procs: ServiceProcess[], timeoutMs: number, everyMs = 25): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`bench: ${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return performance.now();
}

type Sample = { at: number; mcSeqno: number; transactions: number; traces: number; actions: number; cpu: number };

function rates(from: Sample, to: Sample): Rates {
  const seconds = (to.at - from.at) / 1000;
  const transactions = to.transactions - from.transactions;
  const traces = to.traces - from.traces;
  const actions = to.actions - from.actions;
  return {
    seconds: Number(seconds.toFixed(2)),
    transactions,
    traces,
    actions,
    traces_per_s: Math.round(traces / seconds),
    actions_per_s: Math.round(actions / seconds),
    tx_per_s: Math.round(transactions / seconds),
    cpu_s: Number((to.cpu - from.cpu).toFixed(2)),
    tx_per_cpu_s: Math.round(transactions / (to.cpu - from.cpu)),
  };
}

/** localnet -> fetcher -> decoder onto the prefix's topics until `mcBlocks` are decoded; returns the seconds it took. */
async function makeInput(o: TracerStageOptions, dir: string, logs: string, base: Record<string, string>): Promise<number> {
  const ports = { localnet: await freePort(), localnetMetrics: await freePort(), fetcher: await freePort(), decoder: await freePort() };
  const procs: ServiceProcess[] = [];
  try {
    const t0 = performance.now();
    const localnet = startService(
      'localnet',
      {
        ...base,
        METRICS_PORT: String(ports.localnetMetrics),
        LOCALNET_PORT: String(ports.localnet),
        LOCALNET_STATE_DIR: join(dir, 'localnet'),
        LOCALNET_ROUND_MS: '100',
        LOCALNET_TRAFFIC_RATE: String(o.trafficRate),
        LOCALNET_SEED: `bench-${o.prefix}`,
        LOCALNET_STOP_AT_SEQNO: String(o.mcBlocks),
      },
      logs,
      ['--reset'],
    );
    procs.push(localnet);
    await localnet.waitFor(/localnet serving/, 120_000);
    procs.push(startService('decoder', { ...base, METRICS_PORT: String(ports.decoder) }, logs));
    procs.push(startService('fetcher', { ...base, METRICS_PORT: String(ports.fetcher), FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'), FETCHER_START_SEQNO: '1' }, logs));
    await until(
      'the local chain fetched and decoded',
      async () => {
        if ((await metric(ports.fetcher, 'tonstream_fetcher_published_mc_seqno')) < o.mcBlocks) return false;
        const fetched = await metric(ports.fetcher, 'tonstream_fetcher_blocks_total');
        return fetched > 0 && (await metric(ports.decoder, 'tonstream_decoder_blocks_total')) === fetched;
      },
      procs,
      o.timeoutMs,
      250,
    );
    return (performance.now() - t0) / 1000;
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

export async function tracerStage(o: TracerStageOptions): Promise<TracerStageResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tonstream-bench-tracer-'));
  const logs = join(dir, 'logs');
  const base = { KAFKA_BROKERS: o.kafkaBrokers, KAFKA_TOPIC_PREFIX: o.prefix, METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  const redis = new Redis(o.redisUrl);
  let tracer: ServiceProcess | undefined;
  try {
    const inputSeconds = o.reuseInput ? 0 : await makeInput(o, dir, logs, base);
    if (o.reuseInput) {
      // A former run's group would resume after its commits: trace the input from its start.
      const admin = createKafka({ brokers: o.kafkaBrokers.split(','), clientId: 'bench-tracer-stage' }).admin();
      await admin.connect();
      await admin.deleteGroups([`${o.prefix}tonstream-tracer`]).catch(() => {});
      await admin.disconnect();
    }
    await clearState(redis, o.prefix);

    const port = await freePort();
    const profile: Record<string, string> = o.profileDir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require=${profilerPreload(dir, o.profileDir)}`.trim() } : {};
    tracer = startService('tracer', { ...base, ...profile, METRICS_PORT: String(port), REDIS_URL: o.redisUrl }, logs);
    await tracer.waitFor(/joined consumer group/, 120_000);
    const sample = async (): Promise<Sample> => {
      const at = performance.now();
      const m = await metrics(port, SAMPLED);
      return {
        at,
        mcSeqno: m.tonstream_tracer_last_mc_seqno,
        transactions: m.tonstream_tracer_transactions_total,
        traces: m.tonstream_tracer_traces_total,
        actions: m.tonstream_tracer_actions_total,
        cpu: m.tonstream_process_cpu_seconds_total,
      };
    };
    const samples: Sample[] = [await sample()];
    await until(
      'the tracer',
      async () => {
        const s = await sample();
        samples.push(s);
        return s.mcSeqno >= o.mcBlocks;
      },
      [tracer],
      o.timeoutMs,
      SAMPLE_MS,
    );
    const first = samples[0];
    const last = samples[samples.length - 1];
    const steadyFrom = samples.find((s) => s.mcSeqno >= Math.ceil(o.mcBlocks * STEADY_SKIP_FRACTION)) ?? first;
    const whole = rates(first, last);
    return {
      mc_blocks: o.mcBlocks,
      last_mc_seqno: last.mcSeqno,
      startup_s: Number((((samples.find((s) => s.mcSeqno > 0) ?? last).at - first.at) / 1000).toFixed(2)),
      transactions: last.transactions,
      traces: last.traces,
      incomplete_traces: await metric(port, 'tonstream_tracer_incomplete_traces_total'),
      actions: last.actions,
      seconds: whole.seconds,
      cpu_s: whole.cpu_s,
      tx_per_cpu_s: whole.tx_per_cpu_s,
      traces_per_s: whole.traces_per_s,
      actions_per_s: whole.actions_per_s,
      tx_per_s: whole.tx_per_s,
      steady: { ...rates(steadyFrom, last), from_mc_seqno: steadyFrom.mcSeqno },
      input_seconds: Number(inputSeconds.toFixed(2)),
    };
  } finally {
    await tracer?.stop();
    await clearState(redis, o.prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A preload that records a V8 CPU profile of the process into `outDir` on exit (NODE_OPTIONS refuses
 * --cpu-prof, and the service is started by startService). The inspector answers synchronously on the
 * main thread, so the profile is written inside the exit handler.
 */
function profilerPreload(dir: string, outDir: string): string {
  const file = join(dir, 'cpu-profile.cjs');
  writeFileSync(
    file,
    `const { Session } = require('node:inspector');
const fs = require('node:fs');
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');
process.on('exit', () => session.post('Profiler.stop', (err, r) => {
  if (err) return;
  fs.mkdirSync(${JSON.stringify(outDir)}, { recursive: true });
  fs.writeFileSync(${JSON.stringify(outDir)} + '/tracer-' + process.pid + '.cpuprofile', JSON.stringify(r.profile));
}));
`,
  );
  return file;
}

async function clearState(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}tracer:*`);
  if (keys.length > 0) await redis.del(...keys);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await tracerStage({
    kafkaBrokers: process.env.KAFKA_BROKERS || '127.0.0.1:9092',
    redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    prefix: process.env.BENCH_TRACER_PREFIX || `bench_${Date.now().toString(36)}_tracer_`,
    mcBlocks: Number(process.env.BENCH_TRACER_MC_BLOCKS ?? 1000),
    trafficRate: Number(process.env.BENCH_TRACER_TRAFFIC_RATE ?? 80),
    timeoutMs: Number(process.env.BENCH_STAGE_TIMEOUT_MS ?? 900_000),
    reuseInput: process.env.BENCH_TRACER_REUSE_INPUT === '1',
    profileDir: process.env.BENCH_PROFILE_DIR,
  });
  process.stdout.write(JSON.stringify({ bench: 'tracer_stage', ...result }) + '\n');
}
