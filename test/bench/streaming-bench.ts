/**
 * `npm run --silent bench:streaming`: one streamer on the local network's traffic (localnet -> fetcher
 * -> decoder -> writer), BENCH_CLIENTS subscribers (half SSE, half WebSocket, 10 addresses each) run by
 * BENCH_CLIENT_PROCESSES forked load generators (streaming-bench-clients.ts), so the clients do not
 * compete with one event loop. The traffic spreads over BENCH_TRAFFIC_WALLETS wallets; once BENCH_POOL
 * accounts have transacted, the clients' addresses are drawn evenly from them (each address watched by
 * clients x 10 / pool of them; a small pool is the hot-address case). First a baseline: one WebSocket
 * client watching the whole pool, alone, for BASELINE_MS. Then, after a warm-up with every client
 * connected, three phases: `without_stalled` (BENCH_SECONDS/2, every client reading); `with_stalled`
 * (one more WebSocket client subscribes to every address and stops reading, until the streamer drops
 * it, at most MAX_STALL_WAIT_MS); `after_drop` (BENCH_SECONDS/2 again).
 * Prints one JSON line: delivery latency p50/p99 (Kafka timestamp of the event's masterchain block meta,
 * the moment the block became whole in the topics -> client; confirmed events) overall, per phase and
 * for the baseline, with the ratios to it; notifications/s delivered, the streamer's RSS and resume
 * window per phase, and when and why the stalled client was dropped.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKafka, topicNames } from '@tonstream/bus';
import WebSocket from 'ws';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';
import type { ChildMessage, ParentMessage, PhaseReport } from './streaming-bench-clients.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CLIENT_PROCESSES = Number(process.env.BENCH_CLIENT_PROCESSES ?? 2);
const TRAFFIC_RATE = Number(process.env.BENCH_TRAFFIC_RATE ?? 20);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 400);
const TRAFFIC_WALLETS = Number(process.env.BENCH_TRAFFIC_WALLETS ?? 1000);
const POOL = Number(process.env.BENCH_POOL ?? 500);
/** How long the bench waits for BENCH_POOL accounts to transact before going on with those it saw. */
const POOL_WAIT_MS = 120_000;
const BASELINE_MS = 10_000;
/** BENCH_STALLED=0: a control run, the middle phase lasts BENCH_CONTROL_SECONDS with no stalled client. */
const STALLED = process.env.BENCH_STALLED !== '0';
const CONTROL_SECONDS = Number(process.env.BENCH_CONTROL_SECONDS ?? 30);
const ADDRESSES_PER_CLIENT = 10;
/** How long the stalled client may stay before the bench gives up waiting for its drop. */
const MAX_STALL_WAIT_MS = 90_000;
/** Clients connected, the pipeline gets this long to settle before measuring. */
const WARMUP_MS = 10_000;
const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-streaming-bench-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const prefix = `sbench${run}.`;
const env = {
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123',
  CLICKHOUSE_DATABASE: `tonstream_sbench_${run}`,
  KAFKA_TOPIC_PREFIX: prefix,
  FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
  FETCHER_START_SEQNO: '1',
  LOG_LEVEL: 'warn',
};
const procs: ServiceProcess[] = [];
const start = async (name: string, extra: Record<string, string> = {}, args: string[] = [], nodeArgs: string[] = []) => {
  const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args, nodeArgs);
  procs.push(p);
  return p;
};
const accountsSeen = () =>
  existsSync(ledgerPath)
    ? [...new Set(readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).flatMap((l) => (JSON.parse(l) as { blocks: { transactions: { account: string }[] }[] }).blocks.flatMap((b) => b.transactions.map((t) => t.account))))].filter((a) => a.startsWith('0:'))
    : [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench:streaming] ${msg}\n`);

// Each client is a socket in a load generator and one in the streamer (which inherit this limit).
const openFiles = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
if (openFiles < CLIENTS + 1024) throw new Error(`bench:streaming: the open-file limit is ${openFiles}, ${CLIENTS} clients need at least ${CLIENTS + 1024}: raise it (ulimit -n)`);

const port = await freePort();
// Bench clients carry no API key: no per-address connection limit for them.
// BENCH_STREAMER_NODE_ARGS: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the streamer alone.
const streamerNodeArgs = (process.env.BENCH_STREAMER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const streamer = await start('streamer', { STREAMER_PORT: String(port), LOG_LEVEL: 'info', STREAMER_MAX_CONNECTIONS_ANONYMOUS: '-1' }, [], streamerNodeArgs);
await streamer.waitFor(/streamer reading/);
await (await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOCALNET_TRAFFIC_WALLETS: String(TRAFFIC_WALLETS), LOCALNET_SEED: `sbench-${run}`, LOCALNET_LEDGER: ledgerPath, LOG_LEVEL: 'info' }, ['--reset'])).waitFor(/localnet serving/);
for (const s of ['writer', 'decoder', 'fetcher']) await start(s);

const forkClients = () => fork(fileURLToPath(new URL('./streaming-bench-clients.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
// The load generators: each gets an equal share of the subscriptions. The baseline's client has its own.
const children: ChildProcess[] = Array.from({ length: CLIENT_PROCESSES }, forkClients);
const baselineChild = forkClients();
const tell = (msg: ParentMessage) => {
  for (const c of [...children, baselineChild]) if (c.connected) c.send(msg);
};
const next = (c: ChildProcess, kind: ChildMessage['kind']) => new Promise<ChildMessage>((resolve) => {
  const on = (m: ChildMessage) => {
    if (m.kind !== kind) return;
    c.off('message', on);
    resolve(m);
  };
  c.on('message', on);
});

// When each masterchain block became whole in the topics: its meta's Kafka timestamp, passed on to the clients.
const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'streaming-bench' });
const consumer = kafka.consumer({ groupId: `${prefix}bench` });
await consumer.connect();
await consumer.subscribe({ topics: [topicNames(prefix).blockMeta], fromBeginning: true });
await consumer.run({
  eachMessage: async ({ message }) => {
    if (message.key?.toString().startsWith('-1:')) tell({ cmd: 'block', mc: Number(message.headers?.mc_seqno?.toString()), wholeAtMs: Number(message.timestamp) });
  },
});

const poolSince = Date.now();
while (accountsSeen().length < POOL && Date.now() - poolSince < POOL_WAIT_MS) await sleep(500);
const pool = accountsSeen().slice(0, POOL);
log(`${pool.length} accounts to watch (${Date.now() - poolSince} ms)`);

// Baseline: one client alone, watching every address of the pool.
const report = (c: ChildProcess) => {
  const r = next(c, 'report');
  c.send({ cmd: 'report' } satisfies ParentMessage);
  return r as Promise<Extract<ChildMessage, { kind: 'report' }>>;
};
const baselineOpen = next(baselineChild, 'connected');
baselineChild.send({ cmd: 'start', port, subscriptions: [{ index: 1, addresses: pool }] } satisfies ParentMessage);
await baselineOpen;
baselineChild.send({ cmd: 'phase', name: 'baseline' } satisfies ParentMessage);
await sleep(BASELINE_MS);
const baselineReport = await report(baselineChild);
baselineChild.send({ cmd: 'stop' } satisfies ParentMessage);

const pick = (i: number) => Array.from({ length: ADDRESSES_PER_CLIENT }, (_, k) => pool[(i * 7 + k * 13) % pool.length]);
const connectedAt = Date.now();
const connected = children.map((c) => next(c, 'connected'));
children.forEach((c, w) => c.send({ cmd: 'start', port, subscriptions: Array.from({ length: CLIENTS }, (_, i) => i).filter((i) => i % CLIENT_PROCESSES === w).map((index) => ({ index, addresses: pick(index) })) } satisfies ParentMessage));
const opened = (await Promise.all(connected)) as Extract<ChildMessage, { kind: 'connected' }>[];
log(`${opened.reduce((n, o) => n + o.open, 0)} clients open (${opened.reduce((n, o) => n + o.failed, 0)} failed) in ${Date.now() - connectedAt} ms`);

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${streamer.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const rssPeak: Record<string, number> = {};
/** The fan-out's retained resume window (estimated bytes): it grows to its bound whatever the clients do. */
const windowBytes: Record<string, number> = {};
const fanoutStatus = async () => ((await (await fetch(`http://127.0.0.1:${port}/api/streaming/healthz`)).json()) as { components: { streamer: { fanout: { logBytes: number; clients: number } } } }).components.streamer.fanout;
const measure = async (name: string, until: () => boolean) => {
  tell({ cmd: 'phase', name });
  const t0 = Date.now();
  while (!until()) {
    rssPeak[name] = Math.max(rssPeak[name] ?? 0, rss());
    await sleep(500);
  }
  windowBytes[name] = (await fanoutStatus()).logBytes;
  return (Date.now() - t0) / 1000;
};

await sleep(WARMUP_MS);
const half = (SECONDS * 1000) / 2;
let t = Date.now();
const seconds: Record<string, number> = {};
seconds.without_stalled = await measure('without_stalled', () => Date.now() - t >= half);

// A client that subscribes to every address and never reads: it must be dropped without hurting the others.
const stalledAt = Date.now();
const stalled = STALLED ? new WebSocket(`ws://127.0.0.1:${port}/api/streaming/v2/ws`) : null;
stalled?.on('open', () => stalled.send(JSON.stringify({ operation: 'subscribe', types: ['transactions', 'account_state_change'], addresses: pool, min_finality: 'confirmed', id: 'stalled' })));
stalled?.once('message', () => (stalled as unknown as { _socket: { pause(): void } })._socket.pause());
stalled?.on('error', () => undefined);
type Drop = { time: string; transport: string; kind: string; reason: string };
const findDrop = (): Drop | undefined =>
  streamer
    .output()
    .split('\n')
    .filter((l) => l.includes('"client dropped"'))
    .map((l) => JSON.parse(l) as Drop)
    .find((d) => d.transport === 'ws' && Date.parse(d.time) >= stalledAt);
seconds.with_stalled = await measure('with_stalled', () => (STALLED ? findDrop() !== undefined || Date.now() - stalledAt >= MAX_STALL_WAIT_MS : Date.now() - stalledAt >= CONTROL_SECONDS * 1000));
const drop = findDrop();
t = Date.now();
seconds.after_drop = await measure('after_drop', () => Date.now() - t >= half);
const rssEnd = rss();

const reports = await Promise.all(children.map(report));

/** Merges the children's histograms of the named phases; percentiles in ms. */
function summary(names: string[], from = reports) {
  const counts = new Map<number, number>();
  let received = 0;
  let overflow = 0;
  for (const r of from) for (const p of r.phases as PhaseReport[]) {
    if (!names.includes(p.name)) continue;
    received += p.received;
    overflow += p.overflow;
    for (let i = 0; i < p.histogram.length; i += 2) counts.set(p.histogram[i], (counts.get(p.histogram[i]) ?? 0) + p.histogram[i + 1]);
  }
  const sorted = [...counts].sort((a, b) => a[0] - b[0]);
  const samples = sorted.reduce((n, [, c]) => n + c, 0) + overflow;
  const pct = (q: number) => {
    let seen = 0;
    const rank = Math.ceil(q * samples);
    for (const [ms, c] of sorted) if ((seen += c) >= rank) return ms;
    return null;
  };
  const secs = names.reduce((n, name) => n + (seconds[name] ?? BASELINE_MS / 1000), 0);
  return { p50_ms: pct(0.5), p99_ms: pct(0.99), samples, notifications_per_s: Math.round(received / secs) };
}

const mb = (b: number) => Math.round(b / 1024 / 1024);
const latency = summary(['without_stalled', 'with_stalled', 'after_drop']);
const baseline = summary(['baseline'], [baselineReport]);
const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : Math.round((a / b) * 10) / 10);
const result = {
  bench: 'streaming',
  clients: CLIENTS,
  clients_open: opened.reduce((n, o) => n + o.open, 0),
  sse: Math.ceil(CLIENTS / 2),
  ws: Math.floor(CLIENTS / 2),
  addresses_per_client: ADDRESSES_PER_CLIENT,
  client_processes: CLIENT_PROCESSES,
  traffic: { rate_per_round: TRAFFIC_RATE, round_ms: ROUND_MS, wallets: TRAFFIC_WALLETS, pool_addresses: pool.length, subscribers_per_address: Math.round((CLIENTS * ADDRESSES_PER_CLIENT) / pool.length) },
  seconds: Math.round(seconds.without_stalled + seconds.with_stalled + seconds.after_drop),
  latency: { ...latency, from: 'kafka timestamp of the masterchain block meta -> client (confirmed events)' },
  baseline: { clients: 1, addresses: pool.length, seconds: BASELINE_MS / 1000, ...baseline },
  latency_vs_baseline: { p50: ratio(latency.p50_ms, baseline.p50_ms), p99: ratio(latency.p99_ms, baseline.p99_ms) },
  without_stalled: { seconds: Math.round(seconds.without_stalled), ...summary(['without_stalled']) },
  with_stalled: { seconds: Math.round(seconds.with_stalled), ...summary(['with_stalled']) },
  after_drop: { seconds: Math.round(seconds.after_drop), ...summary(['after_drop']) },
  streamer_rss_mb: { peak_without_stalled: mb(rssPeak.without_stalled ?? 0), peak_with_stalled: mb(rssPeak.with_stalled ?? 0), peak_after_drop: mb(rssPeak.after_drop ?? 0), end: mb(rssEnd) },
  resume_window_mb: { without_stalled: mb(windowBytes.without_stalled), with_stalled: mb(windowBytes.with_stalled), after_drop: mb(windowBytes.after_drop) },
  stalled_client: !STALLED ? { control_run: true } : drop ? { dropped: true, dropped_after_s: Math.round((Date.parse(drop.time) - stalledAt) / 100) / 10, kind: drop.kind, reason: drop.reason } : { dropped: false, watched_s: Math.round((Date.now() - stalledAt) / 1000) },
  clients_closed: reports.reduce((n, r) => n + r.closed, 0),
};
tell({ cmd: 'stop' });
stalled?.terminate();
await consumer.disconnect();
for (const p of procs.reverse()) await p.stop();
await fetch(env.CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}` }).catch(() => undefined);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
