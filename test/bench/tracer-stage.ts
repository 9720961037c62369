/**
 * The tracer stage of bench:pipeline. Traces need a contiguous chain whose messages connect (the
 * mainnet fixture blocks are scattered seqnos), so the local network makes one first: localnet with
 * generated traffic -> fetcher -> decoder onto fresh topics, until LOCALNET_STOP_AT_SEQNO and every
 * fetched block is decoded. Then the tracer alone on those topics, timed from its consumer group join
 * to its last masterchain block saved (assembly, classification, publish to ton.traces/ton.actions,
 * Redis state), and its counters read: traces, actions and transactions per second.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
};

export type TracerStageResult = {
  mc_blocks: number;
  transactions: number;
  traces: number;
  incomplete_traces: number;
  actions: number;
  seconds: number;
  traces_per_s: number;
  actions_per_s: number;
  tx_per_s: number;
  /** Seconds the localnet, fetcher and decoder took to make the input (not part of the stage). */
  input_seconds: number;
};

/** A counter or gauge of a service, summed over its label sets. */
async function metric(port: number, name: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

async function until(what: string, check: () => Promise<boolean>, procs: ServiceProcess[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    for (const p of procs) if (p.child.exitCode !== null) throw new Error(`bench: ${p.name} exited with ${p.child.exitCode}:\n${p.output().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return performance.now();
}

export async function tracerStage(o: TracerStageOptions): Promise<TracerStageResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tonstream-bench-tracer-'));
  const logs = join(dir, 'logs');
  const ports = { localnet: await freePort(), localnetMetrics: await freePort(), fetcher: await freePort(), decoder: await freePort(), tracer: await freePort() };
  const base = { KAFKA_BROKERS: o.kafkaBrokers, KAFKA_TOPIC_PREFIX: o.prefix, METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  const procs: ServiceProcess[] = [];
  const redis = new Redis(o.redisUrl);
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
    );
    const inputSeconds = (performance.now() - t0) / 1000;
    await Promise.all(procs.splice(0).map((p) => p.stop()));

    const tracer = startService('tracer', { ...base, METRICS_PORT: String(ports.tracer), REDIS_URL: o.redisUrl }, logs);
    procs.push(tracer);
    await tracer.waitFor(/joined consumer group/, 120_000);
    const start = performance.now();
    const end = await until('the tracer', async () => (await metric(ports.tracer, 'tonstream_tracer_last_mc_seqno')) >= o.mcBlocks, procs, o.timeoutMs);
    const seconds = (end - start) / 1000;
    const traces = await metric(ports.tracer, 'tonstream_tracer_traces_total');
    const actions = await metric(ports.tracer, 'tonstream_tracer_actions_total');
    const transactions = await metric(ports.tracer, 'tonstream_tracer_transactions_total');
    return {
      mc_blocks: o.mcBlocks,
      transactions,
      traces,
      incomplete_traces: await metric(ports.tracer, 'tonstream_tracer_incomplete_traces_total'),
      actions,
      seconds: Number(seconds.toFixed(2)),
      traces_per_s: Math.round(traces / seconds),
      actions_per_s: Math.round(actions / seconds),
      tx_per_s: Math.round(transactions / seconds),
      input_seconds: Number(inputSeconds.toFixed(2)),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    const keys = await redis.keys(`${o.prefix}tracer:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}
