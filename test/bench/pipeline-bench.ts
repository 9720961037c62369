/**
 * `npm run --silent bench:pipeline`: sustained throughput of raw blocks -> decoder -> Kafka -> writer
 * -> ClickHouse on the real servers, with the decoder and the writer as their real processes
 * (`services/<name>/dist/main.js`). Prints one JSON line.
 *
 * Load: the 12 mainnet fixture blocks (2,099 transactions, one fabricated account state) produced
 * BENCH_COPIES times as raw block messages before the clock starts (the fetcher's work is not
 * measured). Copies are the same blocks, so ClickHouse would merge them away: merges are stopped on
 * the bench tables, and at the end every table must hold exactly copies x the rows of one copy (and
 * FINAL exactly one copy), otherwise the bench fails. Stages, each timed from the consumer group
 * join to the last record acknowledged:
 *  - decoder: raw blocks -> decoded topics (block metas acked), alone;
 *  - writer: those decoded topics -> ClickHouse, alone;
 *  - end_to_end: fresh topics and database, decoder and writer running together;
 *  - tracer: traces/s and actions/s of the tracer alone, on a local chain's blocks (tracer-stage.ts:
 *    BENCH_TRACER_MC_BLOCKS masterchain blocks of BENCH_TRACER_TRAFFIC_RATE actions a round), over the
 *    whole run and over the steady state (the first 20% of the blocks left out), with tx per CPU second;
 *    it keeps up when its steady tx/s is at least the end-to-end tx/s.
 *  - cluster (BENCH_CLUSTER=1, the default): 2 decoders and 2 writers end to end into a local ClickHouse
 *    cluster of the bench's own (2 shards x 2 replicas, 3 ZooKeeper nodes, quorum inserts), its tx/s
 *    and its ratio to end_to_end (one decoder, one writer, one server) on these same cores; checked
 *    with FINAL (one copy of every row) through the Distributed tables.
 * Baseline from the same run: decodeBlock() alone in this process (no Kafka, no JSON).
 * BENCH_PROFILE_DIR (+ BENCH_PROFILE_SERVICE: decoder (default), writer or tracer) writes V8 CPU profiles of that service.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { decodeBlock } from '@tonstream/block';
import { blockKey, createIdempotentProducer, createKafka, encodeRawBlock, ensureTopics, topicNames, topicSpecs } from '@tonstream/bus';
import { decodeMessage } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { batchRows, createStore, migrate, recordBatch, TABLES, type Store, type TableName } from '@tonstream/store';
import { Partitioners } from 'kafkajs';
import { startOwnCluster } from '../support/local-cluster.js';
import { freePort, ROOT } from '../support/processes.js';
import { tracerStage } from './tracer-stage.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** About 210 transactions a masterchain block at 80 actions a round: 300 blocks = ~63,000 transactions (~4 min of localnet on a quiet machine). */
const TRACER_MC_BLOCKS = Number(process.env.BENCH_TRACER_MC_BLOCKS ?? 300);
const TRACER_TRAFFIC_RATE = Number(process.env.BENCH_TRACER_TRAFFIC_RATE ?? 80);
/** Making the local chain takes minutes: its own bound. */
const TRACER_TIMEOUT_MS = Number(process.env.BENCH_TRACER_TIMEOUT_MS ?? 1_200_000);
/** Times the 12 fixture blocks are replayed; 30 copies = 62,970 transactions per stage. */
const COPIES = Number(process.env.BENCH_COPIES ?? 30);
const WARMUP_COPIES = Number(process.env.BENCH_WARMUP_COPIES ?? 10);
/** The throughput the pipeline is meant to sustain end to end on a 2-core machine. */
const TARGET_TX_PER_S = 5_000;
const STAGE_TIMEOUT_MS = Number(process.env.BENCH_STAGE_TIMEOUT_MS ?? 300_000);
/** Partitions of every bench topic (topicSpecs' default). */
const PARTITIONS = 4;
const CLUSTER = process.env.BENCH_CLUSTER !== '0';

const fixtures = fixtureRawBlocks({ withAccountState: true });
const TX_PER_COPY = fixtures.reduce((n, f) => n + f.records.transactions.length, 0);
const MSG_PER_COPY = fixtures.reduce((n, f) => n + f.records.messages.length, 0);
const BLOCKS_PER_COPY = fixtures.length;
/** Rows one copy puts in each table, and what FINAL must leave of any number of copies. */
const oneCopy = batchRows(recordBatch({ blocks: fixtures.map((f) => f.records.block), transactions: fixtures.flatMap((f) => f.records.transactions), messages: fixtures.flatMap((f) => f.records.messages) }));
const ROWS_PER_COPY = Object.fromEntries(TABLES.map((t) => [t, oneCopy[t].length])) as Record<TableName, number>;
ROWS_PER_COPY.account_states_latest = fixtures.reduce((n, f) => n + f.raw.account_states.length, 0);
ROWS_PER_COPY.account_states = ROWS_PER_COPY.account_states_latest;
/** One receipt per Kafka message the decoder publishes (a bundle per partition and kind, a meta per block). */
ROWS_PER_COPY.index_receipts = fixtures.reduce((n, f) => {
  const out = decodeMessage(Buffer.from(encodeRawBlock(f.raw)), null, { transactions: PARTITIONS, messages: PARTITIONS, accountStates: PARTITIONS });
  if (!out.ok) throw out.error;
  return n + out.decoded.transactions.length + out.decoded.messages.length + out.decoded.accountStates.length + 1;
}, 0);
const FINAL_ROWS: Partial<Record<TableName, number>> = {
  transactions: TX_PER_COPY,
  blocks: BLOCKS_PER_COPY,
  messages: new Set(fixtures.flatMap((f) => f.records.messages.map((m) => `${m.hash}|${m.direction}|${m.tx_hash}`))).size,
  account_states_latest: ROWS_PER_COPY.account_states_latest,
  account_states: ROWS_PER_COPY.account_states,
  // Every copy repeats the same receipts (same block, kind and partition).
  index_receipts: ROWS_PER_COPY.index_receipts,
};
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 6)}`;

type Service = {
  joinedAt: Promise<number>;
  metric(name: string, label?: [string, string]): Promise<number>;
  stop(): Promise<void>;
};

/** Where to write CPU profiles of one service under load; unset: no profiling. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const PROFILE_SERVICE = process.env.BENCH_PROFILE_SERVICE ?? 'decoder';

async function startService(name: 'decoder' | 'writer', env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const profile = PROFILE_DIR && name === PROFILE_SERVICE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, join(ROOT, `services/${name}/dist/main.js`)], {
    env: { ...process.env, ...env, KAFKA_BROKERS: KAFKA_BROKERS.join(','), METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  let joined!: (t: number) => void;
  const joinedAt = new Promise<number>((resolve) => (joined = resolve));
  let exited = false;
  const keep = (line: string) => {
    tail.push(line);
    if (tail.length > 30) tail.shift();
    if (line.includes('"msg":"joined consumer group"')) joined(performance.now());
  };
  createInterface({ input: child.stdout! }).on('line', keep);
  createInterface({ input: child.stderr! }).on('line', keep);
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = true;
      if (code !== 0) process.stderr.write(`${name} exited with ${code}:\n${tail.join('\n')}\n`);
      resolve();
    }),
  );
  return {
    joinedAt,
    async metric(metric, label) {
      if (exited) throw new Error(`${name} exited:\n${tail.join('\n')}`);
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
      for (const line of text.split('\n')) {
        if (!line.startsWith(metric + '{') && !line.startsWith(metric + ' ')) continue;
        if (label && !line.includes(`${label[0]}="${label[1]}"`)) continue;
        return Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return 0;
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

async function waitUntil(what: string, check: () => Promise<boolean>): Promise<number> {
  const deadline = Date.now() + STAGE_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return performance.now();
}

/** Migrates a fresh database and stops merges on its tables, so every written row can be counted. */
async function prepareDatabase(database: string): Promise<Store> {
  const store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
  for (const t of TABLES) await store.command(`SYSTEM STOP MERGES ${database}.${t}`);
  return store;
}

/** Exactly copies x the rows of one copy in every table (merges are stopped), and one copy under FINAL. */
async function verify(store: Store, copies = COPIES): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const problems: string[] = [];
  for (const t of TABLES) {
    const [raw] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${store.database}.${t}`);
    out[t] = Number(raw.c);
    if (out[t] !== copies * ROWS_PER_COPY[t]) problems.push(`${t}: ${out[t]} rows, want ${copies} x ${ROWS_PER_COPY[t]}`);
    const want = FINAL_ROWS[t];
    if (want === undefined) continue;
    const [fin] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${store.database}.${t} FINAL`);
    if (Number(fin.c) !== want) problems.push(`${t} FINAL: ${fin.c} rows, want ${want}`);
  }
  if (problems.length > 0) throw new Error(`bench: rows did not all land exactly:\n  ${problems.join('\n  ')}`);
  return out;
}

function decodeBaseline(): number {
  const inputs = fixtures.map((f) => ({ boc: f.raw.boc, rootHash: f.raw.root_hash }));
  for (const i of inputs) decodeBlock(i.boc, { rootHash: i.rootHash });
  let rounds = 0;
  const start = performance.now();
  while (rounds < 3 || performance.now() - start < 2_000) {
    for (const i of inputs) decodeBlock(i.boc, { rootHash: i.rootHash });
    rounds++;
  }
  return (rounds * TX_PER_COPY) / ((performance.now() - start) / 1000);
}

const round = (x: number) => Math.round(x);

/** CPU seconds used so far by the local Kafka and ClickHouse (deploy/local pid files), when readable. */
const STATE_DIR = process.env.TONSTREAM_STATE_DIR || join(ROOT, '.local');
const SERVER_PID_FILES = { kafka: 'kafka/kafka.pid', clickhouse: 'clickhouse/run/clickhouse-server.pid' };
function serverCpu(): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [name, file] of Object.entries(SERVER_PID_FILES)) {
    try {
      const pid = readFileSync(join(STATE_DIR, file), 'utf8').trim();
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime and stime (fields 14 and 15 of /proc/pid/stat) in clock ticks, 100 per second on Linux.
      out[name] = (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      out[name] = null;
    }
  }
  return out;
}
function cpuSince(before: Record<string, number | null>): Record<string, number | null> {
  const now = serverCpu();
  return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v === null || before[k] === null ? null : Number((v - before[k]!).toFixed(2))]));
}

/** Rows the writer reports once `copies` copies are stored. */
async function writerDone(w: Service, copies: number): Promise<boolean> {
  return (
    (await w.metric('tonstream_writer_rows_total', ['table', 'transactions'])) >= copies * TX_PER_COPY &&
    (await w.metric('tonstream_writer_rows_total', ['table', 'messages'])) >= copies * MSG_PER_COPY &&
    (await w.metric('tonstream_writer_rows_total', ['table', 'blocks'])) >= copies * BLOCKS_PER_COPY
  );
}

async function main() {
  const kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `bench-${runId}` });
  const admin = kafka.admin();
  await admin.connect();
  // Idempotent: a produce retried after a timeout under load must not put a block in twice (the counts are exact).
  const producer = createIdempotentProducer(kafka, { createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  const stores: Store[] = [];
  const services: Service[] = [];

  /** Topics under `prefix` holding `copies` copies of the raw fixture blocks. */
  async function rawBlocks(prefix: string, copies: number) {
    const topics = topicNames(prefix);
    await ensureTopics(admin, topicSpecs(topics, PARTITIONS));
    const messages = fixtures.map((f) => ({ key: blockKey(f.raw), value: encodeRawBlock(f.raw) }));
    for (let c = 0; c < copies; c++) await producer.send({ topic: topics.blocks, messages });
  }

  /** The decoder and the writer together on `prefix` into a fresh database; verified. */
  async function endToEnd(prefix: string, database: string, copies: number) {
    const store = await prepareDatabase(database);
    stores.push(store);
    const w = await startService('writer', { KAFKA_TOPIC_PREFIX: prefix, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database });
    services.push(w);
    await w.joinedAt;
    const d = await startService('decoder', { KAFKA_TOPIC_PREFIX: prefix });
    services.push(d);
    const start = await d.joinedAt;
    const cpu0 = { decoder: await d.metric('tonstream_process_cpu_seconds_total'), writer: await w.metric('tonstream_process_cpu_seconds_total') };
    const servers0 = serverCpu();
    const end = await waitUntil('the pipeline', () => writerDone(w, copies));
    const cpu = {
      decoder: (await d.metric('tonstream_process_cpu_seconds_total')) - cpu0.decoder,
      writer: (await w.metric('tonstream_process_cpu_seconds_total')) - cpu0.writer,
      ...cpuSince(servers0),
    };
    await Promise.all([d.stop(), w.stop()]);
    return { start, end, cpu, rows: await verify(store, copies) };
  }

  /**
   * Two decoders and two writers (through nodes of either shard) on `prefix` into a cluster database;
   * verified through the Distributed tables (FINAL: exactly one copy of every row).
   */
  async function clusterEndToEnd(prefix: string, database: string, copies: number) {
    await rawBlocks(prefix, copies);
    const cluster = await startOwnCluster();
    const store = createStore({ url: cluster.urls[0], database, cluster: cluster.name, requestTimeoutMs: 120_000 });
    try {
      const migrateMs = performance.now();
      await migrate(store);
      const schemaSeconds = Number(((performance.now() - migrateMs) / 1000).toFixed(1));
      const writerEnv = (node: number) => ({ KAFKA_TOPIC_PREFIX: prefix, CLICKHOUSE_URL: cluster.urls[node], CLICKHOUSE_DATABASE: database, CLICKHOUSE_CLUSTER: cluster.name });
      const writers = [await startService('writer', writerEnv(0)), await startService('writer', writerEnv(2))];
      services.push(...writers);
      await Promise.all(writers.map((w) => w.joinedAt));
      const decoders = [await startService('decoder', { KAFKA_TOPIC_PREFIX: prefix }), await startService('decoder', { KAFKA_TOPIC_PREFIX: prefix })];
      services.push(...decoders);
      const start = Math.min(...(await Promise.all(decoders.map((d) => d.joinedAt))));
      const rows = async (table: string) => (await Promise.all(writers.map((w) => w.metric('tonstream_writer_rows_total', ['table', table])))).reduce((a, b) => a + b, 0);
      const end = await waitUntil('the cluster pipeline', async () => (await rows('transactions')) >= copies * TX_PER_COPY && (await rows('messages')) >= copies * MSG_PER_COPY && (await rows('blocks')) >= copies * BLOCKS_PER_COPY);
      await Promise.all([...decoders, ...writers].map((x) => x.stop()));
      const problems: string[] = [];
      for (const [t, want] of Object.entries(FINAL_ROWS)) {
        const [fin] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.${t} FINAL`);
        if (Number(fin.c) !== want) problems.push(`${t} FINAL: ${fin.c} rows, want ${want}`);
      }
      if (problems.length > 0) throw new Error(`bench: cluster rows did not all land exactly:\n  ${problems.join('\n  ')}`);
      return { start, end, decoders: 2, writers: 2, shards: 2, replicas: 2, insert_quorum: 2, schema_seconds: schemaSeconds };
    } finally {
      await store.close();
      await cluster.stop();
    }
  }

  try {
    const loadBefore = loadavg()[0];
    const decodeOnly = decodeBaseline();

    const warmupPrefix = `bench_${runId}_warmup_`;
    const stagePrefix = `bench_${runId}_stages_`;
    const e2ePrefix = `bench_${runId}_e2e_`;
    // Raw blocks for every run, before any clock starts.
    await rawBlocks(warmupPrefix, WARMUP_COPIES);
    await rawBlocks(stagePrefix, COPIES);
    await rawBlocks(e2ePrefix, COPIES);
    const totalTx = COPIES * TX_PER_COPY;

    const warmup = WARMUP_COPIES > 0 ? await endToEnd(warmupPrefix, `bench_${runId}_warmup`, WARMUP_COPIES) : undefined;

    // Stage 1: the decoder alone.
    const decoder = await startService('decoder', { KAFKA_TOPIC_PREFIX: stagePrefix });
    services.push(decoder);
    const d0 = await decoder.joinedAt;
    const dCpu0 = await decoder.metric('tonstream_process_cpu_seconds_total');
    const dServers = serverCpu();
    const d1 = await waitUntil('the decoder', async () => (await decoder.metric('tonstream_decoder_blocks_total')) >= COPIES * BLOCKS_PER_COPY);
    const decoderCpu = { decoder: (await decoder.metric('tonstream_process_cpu_seconds_total')) - dCpu0, ...cpuSince(dServers) };
    await decoder.stop();

    // Stage 2: the writer alone, on what the decoder published.
    const writerStore = await prepareDatabase(`bench_${runId}_writer`);
    stores.push(writerStore);
    const writer = await startService('writer', { KAFKA_TOPIC_PREFIX: stagePrefix, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: writerStore.database });
    services.push(writer);
    const w0 = await writer.joinedAt;
    const wCpu0 = await writer.metric('tonstream_process_cpu_seconds_total');
    const wServers = serverCpu();
    const w1 = await waitUntil('the writer', () => writerDone(writer, COPIES));
    const writerCpu = { writer: (await writer.metric('tonstream_process_cpu_seconds_total')) - wCpu0, ...cpuSince(wServers) };
    await writer.stop();
    const writerRows = await verify(writerStore);

    // Stage 3: end to end, both running on fresh topics and a fresh database.
    const { start: e0, end: e1, cpu, rows: e2eRows } = await endToEnd(e2ePrefix, `bench_${runId}_e2e`, COPIES);

    // Stage 4: 2 decoders + 2 writers into a ClickHouse cluster.
    const onCluster = CLUSTER ? await clusterEndToEnd(`bench_${runId}_cluster_`, `bench_${runId}_cluster`, COPIES) : undefined;

    // Stage 5: the tracer alone, on a local chain's blocks.
    const tracer = await tracerStage({
      kafkaBrokers: KAFKA_BROKERS.join(','), redisUrl: REDIS_URL, prefix: `bench_${runId}_tracer_`, mcBlocks: TRACER_MC_BLOCKS, trafficRate: TRACER_TRAFFIC_RATE, timeoutMs: TRACER_TIMEOUT_MS,
      profileDir: PROFILE_DIR && PROFILE_SERVICE === 'tracer' ? PROFILE_DIR : undefined,
    });

    const s = (a: number, b: number) => (b - a) / 1000;
    console.log(
      JSON.stringify({
        bench: 'pipeline',
        copies: COPIES,
        transactions_per_stage: totalTx,
        warmup: warmup ? { copies: WARMUP_COPIES, seconds: Number(((warmup.end - warmup.start) / 1000).toFixed(2)), cpu_s: warmup.cpu } : null,
        end_to_end: { tx_per_s: round(totalTx / s(e0, e1)), seconds: Number(s(e0, e1).toFixed(2)), cpu_s: cpu },
        decoder: { tx_per_s: round(totalTx / s(d0, d1)), seconds: Number(s(d0, d1).toFixed(2)), cpu_s: decoderCpu },
        writer: { tx_per_s: round(totalTx / s(w0, w1)), rows_per_s: round(Object.values(writerRows).reduce((n, r) => n + r, 0) / s(w0, w1)), seconds: Number(s(w0, w1).toFixed(2)), cpu_s: writerCpu },
        cluster: onCluster
          ? { ...onCluster, tx_per_s: round(totalTx / s(onCluster.start, onCluster.end)), seconds: Number(s(onCluster.start, onCluster.end).toFixed(2)), ratio_to_end_to_end: Number((s(e0, e1) / s(onCluster.start, onCluster.end)).toFixed(2)) }
          : null,
        tracer: { ...tracer, keeps_up_with_end_to_end: tracer.steady.tx_per_s >= totalTx / s(e0, e1) },
        baseline_decode_block_only: { tx_per_s: round(decodeOnly) },
        target_tx_per_s: TARGET_TX_PER_S,
        meets_target: totalTx / s(e0, e1) >= TARGET_TX_PER_S,
        verified_rows: e2eRows,
        cpu_ms_per_tx: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v === null ? null : Number(((v * 1000) / totalTx).toFixed(3))])),
        loadavg_1m: { before: loadBefore, after: loadavg()[0] },
        note: 'cpu_s: CPU seconds per process during the stage; ClickHouse merges stopped on the bench tables so every written row can be counted',
      }),
    );
  } finally {
    await Promise.all(services.map((x) => x.stop()));
    for (const store of stores) {
      await store.command(`DROP DATABASE IF EXISTS ${store.database}`).catch(() => {});
      await store.close();
    }
    const all = await admin.listTopics();
    await admin.deleteTopics({ topics: all.filter((t) => t.startsWith(`bench_${runId}_`)) }).catch(() => {});
    await producer.disconnect();
    await admin.disconnect();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
