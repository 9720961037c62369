import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, topicNames } from '@tonstream/bus';
import { createStore, type Store, TRACE_COLUMNS, traceFromRow, type TraceRow } from '@tonstream/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseAcquired, standingBy, takeoverAfterKill9 } from '../support/lease.js';
import { ledgerTraces, readLedger, tracesUnlikeLedger } from '../support/ledger.js';
import { type LocalCluster, startOwnCluster } from '../support/local-cluster.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

/**
 * The pipeline on the local cluster (2 shards x 2 replicas, 3 ZooKeeper nodes): two fetchers and two
 * tracers behind their leases, two decoders, two writers (each on another node). While the chain runs
 * one of each is killed with SIGKILL (and started again), a ClickHouse replica is stopped for 30 s and a
 * ZooKeeper node for 30 s. The watermark, followed through the API, must never be ahead of the rows on
 * the replica it is read from, and in the end every ledger transaction, message and trace is stored
 * once, and every stored action once.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STOP_AT = 60;
const OUTAGE_MS = 30_000;
/** Partitions of every topic (KAFKA_PARTITIONS): more than the default 4, so that two of each stage share six. */
const PARTITIONS = 6;

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-cluster-e2e-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_cluster_e2e_${run}`;
const prefix = `clustere2e${run}.`;
const procs: Record<string, ServiceProcess> = {};
const killed = new Set<ServiceProcess>();
let cluster: LocalCluster;
let store: Store;
let apiPort = 0;

const ledger = () => readLedger(ledgerPath);
const head = () => ledger().at(-1)?.mc_seqno ?? 0;
const assertAlive = () => {
  for (const p of Object.values(procs)) if (!killed.has(p) && p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
};
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 200) => eventually(what, check, timeoutMs, everyMs, assertAlive);
const chainAt = (n: number) => until(`the chain at mc ${n}`, async () => (head() >= n ? true : undefined));

/** Starts `name` (a process of `service`) against cluster node `node` (0-3). */
async function start(name: string, service: string, node: number, extra: Record<string, string> = {}, args: string[] = []) {
  const env = {
    KAFKA_BROKERS,
    REDIS_URL,
    CLICKHOUSE_URL: cluster.urls[node],
    CLICKHOUSE_CLUSTER: cluster.name,
    CLICKHOUSE_DATABASE: database,
    KAFKA_TOPIC_PREFIX: prefix,
    FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
    FETCHER_START_SEQNO: '1',
    LEASE_TTL_MS: '4000',
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    KAFKA_PARTITIONS: String(PARTITIONS),
  };
  procs[name] = startService(service, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs', name), args);
}

/** Kills a process with SIGKILL and starts it again (a leased one comes back as the standby). */
async function killAndRestart(name: string, service: string, node: number, extra: Record<string, string> = {}) {
  killed.add(procs[name]);
  await procs[name].kill9();
  await start(name, service, node, extra);
}

/**
 * Follows the watermark through the API: whenever it reaches N, the node the API reads holds, for
 * every seqno up to N, exactly the ledger's transactions (checked at once on each new value).
 */
function watchWatermark() {
  const problems: string[] = [];
  let checked = 0;
  let running = true;
  const check = async (n: number) => {
    const round = ledger().find((r) => r.mc_seqno === n);
    if (!round) return problems.push(`watermark ${n} is beyond the chain's ledger`);
    const want = round.blocks.flatMap((b) => b.transactions.map((t) => t.hash)).sort();
    const got = (await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL WHERE mc_block_seqno = ${n}`)).map((r) => r.hash).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`watermark reached ${n} with ${got.length} of its ${want.length} transactions readable`);
  };
  const loop = (async () => {
    let last = 0;
    while (running) {
      try {
        const res = await fetch(`http://127.0.0.1:${apiPort}/api/v3/masterchainInfo`);
        if (res.ok) {
          const n = Number(res.headers.get('x-index-mc-seqno'));
          if (n < last) problems.push(`watermark went backwards: ${last} -> ${n}`);
          last = Math.max(last, n);
          for (; checked < n; checked++) await check(checked + 1);
        }
      } catch {
        // A node or ZooKeeper away: keep polling.
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { problems, checked: () => checked, stop: async () => ((running = false), await loop) };
}

beforeAll(async () => {
  cluster = await startOwnCluster();
  // The API reads through the last node (a replica of shard 2), the writers write through nodes 1 and 3.
  store = createStore({ url: cluster.urls[3], database, cluster: cluster.name });
  const localnet = { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '600', LOCALNET_TRAFFIC_RATE: '3', LOCALNET_SEED: `cluster-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) };
  await start('localnet', 'localnet', 0, localnet, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('writerA', 'writer', 0);
  await procs.writerA.waitFor(/writer started/, 300_000);
  await start('writerB', 'writer', 2);
  apiPort = await freePort();
  await start('api', 'api', 3, { API_PORT: String(apiPort) });
  await start('tracerA', 'tracer', 1, { LEASE: 'on' });
  await leaseAcquired(procs.tracerA);
  await start('tracerB', 'tracer', 3, { LEASE: 'on' });
  await standingBy(procs.tracerB);
  await start('decoderA', 'decoder', 0);
  await start('decoderB', 'decoder', 2);
  await start('fetcherA', 'fetcher', 0, { LEASE: 'on' });
  await leaseAcquired(procs.fetcherA);
  await start('fetcherB', 'fetcher', 0, { LEASE: 'on' });
  await standingBy(procs.fetcherB);
}, 420_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store?.close();
  await cluster?.stop();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 180_000);

describe('the pipeline on a ClickHouse cluster, two of every stage', () => {
  it('stores the chain once through kill -9 of one of each, a replica and a ZooKeeper node away', async () => {
    const watermark = watchWatermark();
    const admin = createKafka({ brokers: [KAFKA_BROKERS], clientId: prefix }).admin();
    await admin.connect();
    const topics = topicNames(prefix);
    const { topics: made } = await admin.fetchTopicMetadata({ topics: [topics.blocks, topics.transactions, topics.traces] });
    await admin.disconnect();
    expect(made.map((t) => t.partitions.length)).toEqual([PARTITIONS, PARTITIONS, PARTITIONS]);
    // The moments of the faults: each in its own stretch of rounds, at random within it (printed with the result).
    const at = [4, 8, 12, 16, 20].map((from) => from + Math.floor(Math.random() * 4));
    const faults: Record<string, unknown> = { fault_rounds: at };
    await chainAt(at[0]);
    faults.fetcher_takeover_ms = (await takeoverAfterKill9(procs.fetcherA, procs.fetcherB)).takeoverMs;
    killed.add(procs.fetcherA);
    await start('fetcherA', 'fetcher', 0, { LEASE: 'on' });
    await chainAt(at[1]);
    await killAndRestart('decoderA', 'decoder', 0);
    await chainAt(at[2]);
    await killAndRestart('writerB', 'writer', 2);
    await chainAt(at[3]);
    faults.tracer_takeover_ms = (await takeoverAfterKill9(procs.tracerA, procs.tracerB)).takeoverMs;
    killed.add(procs.tracerA);
    await start('tracerA', 'tracer', 1, { LEASE: 'on' });
    await chainAt(at[4]);
    // A replica of shard 1 away: quorum inserts to that shard fail and are retried until it is back.
    await cluster.services('stop-node', 'clickhouse-2');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await cluster.services('start-node', 'clickhouse-2');
    await chainAt(Math.min(STOP_AT, head() + 4));
    await cluster.services('stop-node', 'zookeeper-3');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await cluster.services('start-node', 'zookeeper-3');

    await procs.localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, 240_000);
    await until(`the watermark at ${STOP_AT}`, async () => (watermark.checked() >= STOP_AT ? true : undefined), 300_000, 500);
    await watermark.stop();
    expect(watermark.problems).toEqual([]);

    const rounds = ledger();
    const txs = rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions));
    const messages = txs.flatMap((t) => [...(t.in_msg ? [`${t.in_msg}|in|${t.hash}`] : []), ...t.out_msgs.map((m) => `${m}|out|${t.hash}`)]);
    const storedTxs = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL`);
    expect(storedTxs.map((r) => r.hash).sort()).toEqual(txs.map((t) => t.hash).sort());
    const storedMsgs = await store.query<{ k: string }>(`SELECT concat(hash, '|', direction, '|', tx_hash) AS k FROM ${database}.messages FINAL`);
    expect(storedMsgs.map((r) => r.k).sort()).toEqual(messages.sort());

    // Traces: every trace of the ledger that ended 10 rounds before the chain stopped, once and complete.
    const expected = ledgerTraces(rounds);
    const settled = [...expected.values()].filter((e) => e.endSeqno <= STOP_AT - 10);
    await until(`the ${settled.length} settled traces stored`, async () => {
      const [{ c }] = await store.query<{ c: string }>(`SELECT uniqExact(trace_id) AS c FROM ${database}.traces WHERE trace_id IN (${settled.map((e) => `'${e.id}'`).join(',')})`);
      return Number(c) === settled.length ? true : undefined;
    });
    const stored = (await store.query<TraceRow>(`SELECT ${TRACE_COLUMNS} FROM ${database}.traces FINAL`)).map(traceFromRow);
    expect(new Set(stored.map((t) => t.trace_id)).size).toBe(stored.length);
    expect(tracesUnlikeLedger(stored, expected)).toEqual([]);
    // Actions: each stored once (FINAL over the shards keeps one row per id), one trace's actions on one shard.
    const [actions] = await store.query<{ rows: string; ids: string }>(`SELECT count() AS rows, uniqExact(trace_id, action_id) AS ids FROM ${database}.actions FINAL`);
    expect(Number(actions.rows)).toBe(Number(actions.ids));
    expect(Number(actions.rows)).toBeGreaterThan(0);
    console.log(JSON.stringify({ suite: 'cluster-e2e', transactions: txs.length, traces: stored.length, actions: Number(actions.rows), ...faults }));
  }, 900_000);
});
