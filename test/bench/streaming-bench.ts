/**
 * `npm run --silent bench:streaming`: one streamer on the local network's traffic (localnet -> fetcher
 * -> decoder -> writer), BENCH_CLIENTS subscribers (half SSE, half WebSocket, 10 addresses each) for
 * BENCH_SECONDS, plus one WebSocket client that stops reading. Prints one JSON line: delivery latency
 * p50/p99 from the Kafka timestamp of the event's masterchain block meta (the moment its block became
 * whole in the topics) to the client, the streamer's peak RSS, notifications/s delivered, and whether
 * the stalled client was dropped.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, topicNames } from '@tonstream/bus';
import WebSocket from 'ws';
import { freePort, type ServiceProcess, startService } from '../support/processes.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const ADDRESSES_PER_CLIENT = 10;
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
const start = async (name: string, extra: Record<string, string> = {}, args: string[] = []) => {
  const p = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
  procs.push(p);
  return p;
};
const accountsSeen = () =>
  existsSync(ledgerPath)
    ? [...new Set(readFileSync(ledgerPath, 'utf8').split('\n').filter(Boolean).flatMap((l) => (JSON.parse(l) as { blocks: { transactions: { account: string }[] }[] }).blocks.flatMap((b) => b.transactions.map((t) => t.account))))].filter((a) => a.startsWith('0:'))
    : [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => (xs.length === 0 ? null : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]);
const mcOf = (cursor: string) => Number(/^[cf](\d+)/.exec(cursor)?.[1]);

const port = await freePort();
const streamer = await start('streamer', { STREAMER_PORT: String(port), LOG_LEVEL: 'info' });
await streamer.waitFor(/streamer reading/);
await (await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: '20', LOCALNET_SEED: `sbench-${run}`, LOCALNET_LEDGER: ledgerPath, LOG_LEVEL: 'info' }, ['--reset'])).waitFor(/localnet serving/);
for (const s of ['writer', 'decoder', 'fetcher']) await start(s);

// When each masterchain block became whole in the topics: its meta's Kafka timestamp.
const blockWholeAt = new Map<number, number>();
const kafka = createKafka({ brokers: env.KAFKA_BROKERS.split(','), clientId: 'streaming-bench' });
const consumer = kafka.consumer({ groupId: `${prefix}bench` });
await consumer.connect();
await consumer.subscribe({ topics: [topicNames(prefix).blockMeta], fromBeginning: true });
await consumer.run({ eachMessage: async ({ message }) => void (message.key?.toString().startsWith('-1:') && blockWholeAt.set(Number(message.headers?.mc_seqno?.toString()), Number(message.timestamp))) });

while (accountsSeen().length < 30) await sleep(500);
const pool = accountsSeen();
const latencies: number[] = [];
let received = 0;
const onEvent = (cursor: string, at: number) => {
  received += 1;
  const t = blockWholeAt.get(mcOf(cursor));
  if (t !== undefined && cursor.startsWith('c')) latencies.push(at - t);
};
const pick = (i: number) => Array.from({ length: ADDRESSES_PER_CLIENT }, (_, k) => pool[(i * 7 + k * 13) % pool.length]);
const closers: (() => void)[] = [];
for (let i = 0; i < CLIENTS; i++) {
  const sub = { types: ['transactions', 'account_state_change'], addresses: pick(i), min_finality: 'confirmed' };
  if (i % 2 === 0) {
    const abort = new AbortController();
    closers.push(() => abort.abort());
    void (async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/streaming/v2/sse`, { method: 'POST', body: JSON.stringify(sub), headers: { 'Content-Type': 'application/json' }, signal: abort.signal });
      let buf = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let m = /^id: (\S+)$/m.exec(buf); m; m = /^id: (\S+)$/m.exec(buf)) {
          onEvent(m[1], Date.now());
          buf = buf.slice(m.index + m[0].length);
        }
      }
    })().catch(() => undefined);
  } else {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/streaming/v2/ws`);
    closers.push(() => ws.terminate());
    ws.on('open', () => ws.send(JSON.stringify({ operation: 'subscribe', ...sub })));
    ws.on('message', (d) => {
      const cursor = /"cursor":"([^"]+)"/.exec(d.toString())?.[1];
      if (cursor) onEvent(cursor, Date.now());
    });
    ws.on('error', () => undefined);
  }
  if (i % 100 === 99) await sleep(50);
}
// A client that subscribes to everything and never reads: it must be dropped without hurting the others.
const stalled = new WebSocket(`ws://127.0.0.1:${port}/api/streaming/v2/ws`);
let stalledClosed = false;
stalled.on('open', () => {
  stalled.send(JSON.stringify({ operation: 'subscribe', types: ['transactions', 'account_state_change'], addresses: pool, min_finality: 'confirmed' }));
  setTimeout(() => (stalled as unknown as { _socket: { pause(): void } })._socket.pause(), 200);
});
stalled.on('close', () => (stalledClosed = true));
stalled.on('error', () => undefined);

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${streamer.child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
await sleep(5_000);
received = 0;
latencies.length = 0;
let peakRss = 0;
const t0 = Date.now();
while (Date.now() - t0 < SECONDS * 1000) {
  peakRss = Math.max(peakRss, rss());
  await sleep(1000);
}
const seconds = (Date.now() - t0) / 1000;
const result = {
  bench: 'streaming',
  clients: CLIENTS,
  sse: Math.ceil(CLIENTS / 2),
  ws: Math.floor(CLIENTS / 2),
  addresses_per_client: ADDRESSES_PER_CLIENT,
  seconds: Math.round(seconds),
  notifications_per_s: Math.round(received / seconds),
  latency_ms: { p50: pct(latencies, 50), p99: pct(latencies, 99), samples: latencies.length, from: 'kafka timestamp of the masterchain block meta -> client (confirmed events)' },
  streamer_rss_peak_mb: Math.round(peakRss / 1024 / 1024),
  stalled_client_dropped: stalledClosed,
};
for (const c of closers) c();
stalled.terminate();
await consumer.disconnect();
for (const p of procs.reverse()) await p.stop();
await fetch(env.CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}` }).catch(() => undefined);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
