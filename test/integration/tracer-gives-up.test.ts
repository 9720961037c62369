import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, ensureTopics, topicNames, topicSpecs, type Topics } from '@tonstream/bus';
import { createStore, migrate, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { type Admin, type IHeaders, type Kafka, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { type Received, sseClient } from './streaming-clients.js';
import { type LedgerRound, readLedger } from '../support/ledger.js';
import { expectedTransactions } from './streaming-ledger.js';

/**
 * One block of the decoder's output never arrives (as when the decoder dead-letters it): the tracer
 * and the streamer wait for it a bounded number of blocks, then go on with what arrived. The local
 * network runs through fetcher and decoder into topics under one prefix; the test relays the decoder's
 * messages, in the decoder's order, to a second prefix the tracer and the streamer read, leaving out
 * every message of one shard block X. The chain's ledger is the independent source: its transactions
 * linked by message hashes are the expected traces. The tracer is killed with SIGKILL while it waits
 * for X's block, and later reads its Redis through a proxy that goes away.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STOP_AT = 45;
/** The masterchain block whose shard block X is left out. */
const M = 14;
const GIVE_UP_AFTER_MC_BLOCKS = 6;
/** Pending traces are published as incomplete this many blocks after their first: the pieces of traces through X end so. */
const INCOMPLETE_AFTER_MC_BLOCKS = 10;
/** Relayed first: the tracer and the streamer wait for M (fewer than GIVE_UP_AFTER_MC_BLOCKS whole blocks after it). */
const FIRST_RELAY_TO = M + 3;
/** Relayed next: they give up on M and go on; the rest is relayed while the tracer's Redis is away. */
const SECOND_RELAY_TO = STOP_AT - 6;
/** How soon /healthcheck must say that Redis went away. */
const REDIS_NOTICED_MS = 6_000;
/** Wallet actions per round: block M's busiest shard block X still holds several transactions, of traces that continue past it. */
const TRAFFIC_RATE = 4;

type Relayed = { topic: 'transactions' | 'messages' | 'accountStates' | 'blockMeta'; partition: number; key: string; value: Buffer | null; headers: IHeaders; mcSeqno: number };
type ExpectedTrace = { id: string; txs: Set<string>; rootSeqno: number; endSeqno: number };
type TraceRecord = { trace_id: string; is_incomplete: boolean; trace_info: { trace_state: string }; nodes: { tx_hash: string }[] };
type Health = { status: string; reasons: string[] };

const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-giveup-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const source = topicNames(`giveupsrc${run}.`);
const prefix = `giveup${run}.`;
const target = topicNames(prefix);
const database = `tonstream_giveup_${run}`;
const procs: Record<string, ServiceProcess> = {};
const ports = { tracer: 0, streamer: 0, streamerMetrics: 0 };
let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let redis: Redis;
let store: Store;
let redisProxy: Awaited<ReturnType<typeof startProxy>>;
let baseEnv: Record<string, string> = {};
let sse: ReturnType<typeof sseClient> | undefined;

const ledger = () => readLedger(ledgerPath);
const header = (h: IHeaders, name: string) => String(h[name] ?? '');

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 200) => eventually(what, check, timeoutMs, everyMs, assertAlive);

async function start(name: string, env: Record<string, string>, args: string[] = []) {
  procs[name] = startService(name, { ...baseEnv, METRICS_PORT: String(await freePort()), ...env }, join(dir, 'logs'), args);
}

function startTracer() {
  return start('tracer', {
    KAFKA_TOPIC_PREFIX: prefix,
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    METRICS_PORT: String(ports.tracer),
    TRACER_GIVE_UP_AFTER_MC_BLOCKS: String(GIVE_UP_AFTER_MC_BLOCKS),
    TRACER_INCOMPLETE_AFTER_MC_BLOCKS: String(INCOMPLETE_AFTER_MC_BLOCKS),
  });
}

async function healthOf(port: number): Promise<Health> {
  return (await fetch(`http://127.0.0.1:${port}/healthcheck`)).json() as Promise<Health>;
}
async function metric(port: number, name: string, label = ''): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(label));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}
const tracerDone = async () => Number((await redis.get(`${prefix}tracer:done_mc_seqno`)) ?? -1);

/** A TCP proxy to Redis that can go away: `down` resets every connection and refuses new ones, `stalled` holds them without passing a byte. */
async function startProxy(to: URL) {
  let mode: 'up' | 'down' | 'stalled' = 'up';
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    if (mode === 'down') return void client.destroy();
    const upstream = connect(Number(to.port || 6379), to.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const close = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    for (const s of pair) s.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
    if (mode === 'stalled') for (const s of pair) s.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    set(next: 'up' | 'down' | 'stalled') {
      mode = next;
      for (const pair of pairs) {
        if (next === 'down') for (const s of pair) s.destroy();
        else if (next === 'stalled') for (const s of pair) s.pause();
        else for (const s of pair) s.resume();
      }
    },
    close() {
      for (const pair of pairs) for (const s of pair) s.destroy();
      server.close();
    },
  };
}

/** Every message of the decoder's four topics under the source prefix, per partition in order. */
async function readDecoded(): Promise<Relayed[]> {
  const kinds = { [source.transactions]: 'transactions', [source.messages]: 'messages', [source.accountStates]: 'accountStates', [source.blockMeta]: 'blockMeta' } as const;
  const out: Relayed[] = [];
  const ends = new Map<string, bigint>();
  for (const topic of Object.keys(kinds)) for (const p of await admin.fetchTopicOffsets(topic)) ends.set(`${topic}/${p.partition}`, BigInt(p.high));
  const read = new Map<string, bigint>();
  const consumer = kafka.consumer({ groupId: `giveup-relay-${run}-${randomBytes(3).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: Object.keys(kinds), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      read.set(`${topic}/${partition}`, BigInt(message.offset) + 1n);
      const headers = message.headers ?? {};
      out.push({ topic: kinds[topic], partition, key: message.key!.toString(), value: message.value, headers, mcSeqno: Number(header(headers, 'mc_seqno')) });
    },
  });
  await until('the decoder topics read to their end', async () => ([...ends].every(([k, end]) => (read.get(k) ?? 0n) >= end) ? true : undefined), 60_000);
  await consumer.disconnect();
  return out;
}

/** The decoder's messages of masterchain blocks (from, to], records before metas, as the decoder sends them. */
async function relay(all: Relayed[], from: number, to: number, leaveOut: string) {
  for (let n = from + 1; n <= to; n++) {
    const round = all.filter((m) => m.mcSeqno === n && m.key !== leaveOut);
    for (const kinds of [['transactions', 'messages', 'accountStates'], ['blockMeta']]) {
      const batch = round.filter((m) => kinds.includes(m.topic));
      for (const topic of new Set(batch.map((m) => m.topic))) {
        await producer.send({ topic: target[topic], messages: batch.filter((m) => m.topic === topic).map((m) => ({ key: m.key, value: m.value, headers: m.headers, partition: m.partition })) });
      }
    }
  }
}

/** Every message of a topic under the target prefix, read to its current end. */
async function readAll(topic: string): Promise<{ key: string; value: string }[]> {
  const ends = (await admin.fetchTopicOffsets(topic)).filter((p) => BigInt(p.high) > 0n);
  const out: { key: string; value: string }[] = [];
  const read = new Map<number, bigint>();
  const consumer = kafka.consumer({ groupId: `giveup-read-${run}-${randomBytes(3).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      read.set(partition, BigInt(message.offset) + 1n);
      out.push({ key: message.key!.toString(), value: message.value!.toString() });
    },
  });
  await until(`${topic} read to its end`, async () => (ends.every((p) => (read.get(p.partition) ?? 0n) >= BigInt(p.high)) ? true : undefined), 60_000);
  await consumer.disconnect();
  return out;
}

/** The ledger's traces: transactions joined through message hashes, each tree named by its root. */
function expectedTraces(rounds: LedgerRound[]) {
  const txs = rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => ({ ...t, seqno: r.mc_seqno }))));
  const sender = new Map<string, string>();
  for (const t of txs) for (const m of t.out_msgs) sender.set(m, t.hash);
  const byHash = new Map(txs.map((t) => [t.hash, t]));
  const rootOf = (hash: string): string => {
    const parent = byHash.get(hash)!.in_msg && sender.get(byHash.get(hash)!.in_msg!);
    return parent ? rootOf(parent) : hash;
  };
  const traces = new Map<string, ExpectedTrace>();
  const traceOf = new Map<string, ExpectedTrace>();
  for (const t of txs) {
    const id = rootOf(t.hash);
    let e = traces.get(id);
    if (!e) traces.set(id, (e = { id, txs: new Set(), rootSeqno: byHash.get(id)!.seqno, endSeqno: 0 }));
    e.txs.add(t.hash);
    e.endSeqno = Math.max(e.endSeqno, t.seqno);
    traceOf.set(t.hash, e);
  }
  return { traces, traceOf, byHash, sender };
}

beforeAll(async () => {
  baseEnv = { KAFKA_BROKERS, LOG_LEVEL: 'info' };
  kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `giveup-${run}` });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(target as Topics));
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  redis = new Redis(REDIS_URL);
  redisProxy = await startProxy(new URL(REDIS_URL));
  store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
  ports.tracer = await freePort();
  ports.streamer = await freePort();
  ports.streamerMetrics = await freePort();

  const chain = { KAFKA_TOPIC_PREFIX: source.blocks.replace(/ton\.blocks$/, ''), FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'), FETCHER_START_SEQNO: '1' };
  await start(
    'localnet',
    { ...chain, LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '400', LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOCALNET_SEED: `giveup-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) },
    ['--reset'],
  );
  await procs.localnet.waitFor(/localnet serving/);
  await start('decoder', chain);
  await start('fetcher', chain);
  await start('streamer', {
    KAFKA_TOPIC_PREFIX: prefix,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: database,
    STREAMER_PORT: String(ports.streamer),
    METRICS_PORT: String(ports.streamerMetrics),
    STREAMER_CHECK_API_KEYS: 'false',
    STREAMER_REPLAY_MS: '3600000',
    STREAMER_TRACER_WAIT_MS: '0',
    STREAMER_GIVE_UP_AFTER_MC_BLOCKS: String(GIVE_UP_AFTER_MC_BLOCKS),
  });
  await procs.streamer.waitFor(/streamer reading/);
  await startTracer();
  await procs.tracer.waitFor(/tracer started/);
}, 120_000);

afterAll(async () => {
  sse?.close();
  await sse?.done.catch(() => undefined);
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  redisProxy?.close();
  await producer?.disconnect();
  await admin?.disconnect();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store?.close();
  const keys = await redis.keys(`${prefix}tracer:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}, 60_000);

describe('a block of the decoder output that never arrives', () => {
  let decoded: Relayed[] = [];
  let left = '';
  let rounds: LedgerRound[] = [];
  let received: Received[] = [];

  it('holds the tracer and the streamer only a bounded number of blocks, through a kill -9 while they wait', async () => {
    await procs.localnet.waitFor(/LOCALNET_STOP_AT_SEQNO reached/, 240_000);
    rounds = ledger();
    expect(rounds.map((r) => r.mc_seqno)).toEqual(Array.from({ length: STOP_AT }, (_, k) => k + 1));
    // Every block's meta is there (the decoder sends it after the block's records were acknowledged):
    // each masterchain block's, and as many of its seqno as its manifest's mc_blocks.
    decoded = await until('the decoder done with every block', async () => {
      const all = await readDecoded();
      const metas = all.filter((m) => m.topic === 'blockMeta');
      for (let n = 1; n <= STOP_AT; n++) {
        const mc = metas.find((m) => m.mcSeqno === n && m.key.startsWith('-1:'));
        if (!mc || metas.filter((m) => m.mcSeqno === n).length < (JSON.parse(header(mc.headers, 'manifest')) as { mc_blocks: number }).mc_blocks) return undefined;
      }
      return all;
    }, 120_000, 1_000);

    // X: the shard block of masterchain block M with the most transactions.
    const shardBlocks = rounds[M - 1].blocks.filter((b) => b.workchain === 0 && b.transactions.length > 0).sort((a, b) => b.transactions.length - a.transactions.length);
    expect(shardBlocks.length).toBeGreaterThan(0);
    const x = shardBlocks[0];
    left = `${x.workchain}:${x.shard.toUpperCase()}:${x.seqno}`;
    expect(decoded.filter((m) => m.key === left).map((m) => m.mcSeqno)).toContain(M);
    console.log(`tracer-gives-up: leaving out ${left} (${x.transactions.length} transactions) of masterchain block ${M}`);

    const accounts = [...new Set(rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.account))))];
    sse = sseClient(`http://127.0.0.1:${ports.streamer}/api/streaming/v2/sse`, { types: ['transactions'], addresses: accounts, min_finality: 'confirmed' });
    received = sse.frames;
    await until('the SSE client subscribed', async () => (received.length > 0 ? true : undefined));

    await relay(decoded, 0, FIRST_RELAY_TO, left);
    const waiting = new RegExp(`waiting \\d+ s for masterchain block ${M} while ${FIRST_RELAY_TO} is whole: \\d+ of \\d+ blocks whole`);
    await until('the tracer degraded, waiting for the block', async () => ((await healthOf(ports.tracer)).reasons.some((r) => waiting.test(r)) ? true : undefined), 60_000);
    await until('the streamer degraded, waiting for the block', async () => {
      const h = await healthOf(ports.streamerMetrics);
      return h.status === 'degraded' && h.reasons.some((r) => waiting.test(r)) ? true : undefined;
    }, 60_000);
    expect(await tracerDone()).toBe(M - 1);

    // Killed while it waits, the tracer comes back to the same wait (its state and offsets end before M).
    await procs.tracer.kill9();
    await startTracer();
    await until('the restarted tracer waiting for the block again', async () => ((await healthOf(ports.tracer)).reasons.some((r) => waiting.test(r)) ? true : undefined), 60_000);
    expect(await tracerDone()).toBe(M - 1);

    await relay(decoded, FIRST_RELAY_TO, SECOND_RELAY_TO, left);
    await until('the tracer past the block', async () => ((await tracerDone()) >= SECOND_RELAY_TO ? true : undefined), 60_000);
    const gaveUp = new RegExp(`gave up on masterchain block ${M} at [0-9T:.-]+Z: \\d+ of \\d+ blocks whole`);
    const tracerHealth = await healthOf(ports.tracer);
    expect(tracerHealth.status).toBe('degraded');
    expect(tracerHealth.reasons.filter((r) => gaveUp.test(r))).toHaveLength(1);
    expect(await metric(ports.tracer, 'tonstream_tracer_given_up_mc_blocks_total')).toBe(1);
    await until('the streamer past the block', async () => {
      const h = await healthOf(ports.streamerMetrics);
      return h.status === 'degraded' && h.reasons.some((r) => gaveUp.test(r)) && (await metric(ports.streamerMetrics, 'tonstream_streamer_last_mc_seqno', 'stage="confirmed"'))! >= SECOND_RELAY_TO ? true : undefined;
    }, 60_000);
    expect(await metric(ports.streamerMetrics, 'tonstream_streamer_given_up_mc_blocks_total')).toBe(1);
  });

  it('turns the tracer\'s health to error within seconds while Redis is away, and the tracer goes on when it is back', async () => {
    expect(left).not.toBe('');
    expect((await healthOf(ports.tracer)).status).toBe('degraded');
    expect(await metric(ports.tracer, 'tonstream_tracer_redis_up')).toBe(1);

    // Redis gone: connections reset, new ones refused. The rest of the chain arrives meanwhile.
    redisProxy.set('down');
    const downAt = Date.now();
    const down = await until('the tracer unhealthy without Redis', async () => {
      const res = await fetch(`http://127.0.0.1:${ports.tracer}/healthcheck`);
      const h = (await res.json()) as Health;
      return res.status === 503 && h.status === 'error' && /^redis (reconnecting|connecting|connect|close|end)\b/.test(h.reasons[0]) ? h : undefined;
    }, 20_000, 100);
    expect(Date.now() - downAt).toBeLessThan(REDIS_NOTICED_MS);
    expect(down.reasons.join('\n')).toMatch(new RegExp(`gave up on masterchain block ${M}`));
    await until('tonstream_tracer_redis_up at 0', async () => ((await metric(ports.tracer, 'tonstream_tracer_redis_up')) === 0 ? true : undefined), 5_000, 100);
    await relay(decoded, SECOND_RELAY_TO, STOP_AT, left);
    await until('the tracer holding the next block for Redis', async () => ((await metric(ports.tracer, 'tonstream_tracer_waiting_mc_blocks'))! > 0 ? true : undefined), 30_000);
    expect(await tracerDone()).toBe(SECOND_RELAY_TO);

    redisProxy.set('up');
    await until('the tracer through the last block', async () => ((await tracerDone()) >= STOP_AT ? true : undefined), 60_000);
    await until('the tracer healthy again but for the given-up block', async () => {
      const h = await healthOf(ports.tracer);
      return h.status === 'degraded' && h.reasons.length === 1 ? true : undefined;
    }, 20_000);

    // Redis unanswering on a connection that looks up (a stalled network path).
    redisProxy.set('stalled');
    const stalledAt = Date.now();
    await until('the tracer unhealthy while Redis does not answer', async () => {
      const h = await healthOf(ports.tracer);
      return h.status === 'error' && /^redis has not answered a PING for \d+ s/.test(h.reasons[0]) ? true : undefined;
    }, 20_000, 100);
    expect(Date.now() - stalledAt).toBeLessThan(REDIS_NOTICED_MS);
    redisProxy.set('up');
    await until('the tracer healthy again but for the given-up block', async () => ((await healthOf(ports.tracer)).reasons.length === 1 ? true : undefined), 20_000);
  });

  it('published every trace not through the missing block complete and once, the others incomplete, and committed every offset', async () => {
    expect(left).not.toBe('');
    const { traces, traceOf, byHash } = expectedTraces(rounds);
    const lost = new Set(rounds[M - 1].blocks.find((b) => `${b.workchain}:${b.shard.toUpperCase()}:${b.seqno}` === left)!.transactions.map((t) => t.hash));
    const through = (e: ExpectedTrace) => [...e.txs].some((h) => lost.has(h));

    // Offsets: the tracer's group committed everything it read, block M's records included.
    await until('every offset of the tracer committed', async () => {
      for (const topic of [target.transactions, target.messages, target.accountStates, target.blockMeta]) {
        const ends = await admin.fetchTopicOffsets(topic);
        const [committed] = await admin.fetchOffsets({ groupId: `${prefix}tonstream-tracer`, topics: [topic] });
        for (const p of ends) if (BigInt(p.high) > 0n && committed.partitions.find((c) => c.partition === p.partition)?.offset !== p.high) return undefined;
      }
      return true;
    }, 30_000);

    const published = (await readAll(target.traces)).map((m) => JSON.parse(m.value) as TraceRecord);
    const ids = published.map((t) => t.trace_id);
    expect(new Set(ids).size, 'each trace published once').toBe(ids.length);
    const wrong: string[] = [];
    for (const t of published) {
      const nodes = t.nodes.map((n) => n.tx_hash);
      const e = traceOf.get(t.trace_id);
      if (!e) wrong.push(`${t.trace_id}: not a transaction of the ledger`);
      else if (nodes.some((h) => lost.has(h))) wrong.push(`${t.trace_id}: holds a transaction of the left-out block`);
      else if (nodes.some((h) => traceOf.get(h) !== e)) wrong.push(`${t.trace_id}: mixes ledger traces`);
      else if (!t.is_incomplete && (through(e) || JSON.stringify([...nodes].sort()) !== JSON.stringify([...e.txs].sort()) || t.trace_info.trace_state !== 'complete')) {
        wrong.push(`${t.trace_id}: published complete (${t.trace_info.trace_state}) with ${nodes.length} of the ledger's ${e.txs.size} transactions${through(e) ? ', through the left-out block' : ''}`);
      }
    }
    expect(wrong).toEqual([]);

    // Every trace that could complete did, and every transaction that arrived is in exactly one trace
    // (one through the missing block ends within INCOMPLETE_AFTER_MC_BLOCKS of its first block).
    const byId = new Map(published.map((t) => [t.trace_id, t]));
    for (const e of traces.values()) {
      if (through(e) || e.endSeqno > STOP_AT || e.endSeqno - e.rootSeqno > INCOMPLETE_AFTER_MC_BLOCKS || e.rootSeqno > STOP_AT - INCOMPLETE_AFTER_MC_BLOCKS) continue;
      expect(byId.get(e.id)?.is_incomplete, `trace ${e.id} rooted at ${e.rootSeqno} published complete`).toBe(false);
    }
    const placed = new Map<string, number>();
    for (const t of published) for (const n of t.nodes) placed.set(n.tx_hash, (placed.get(n.tx_hash) ?? 0) + 1);
    const settledTxs = rounds.filter((r) => r.mc_seqno <= STOP_AT - INCOMPLETE_AFTER_MC_BLOCKS).flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.hash))).filter((h) => !lost.has(h));
    expect(settledTxs.filter((h) => placed.get(h) !== 1)).toEqual([]);
    const cut = published.filter((t) => t.is_incomplete && through(traceOf.get(t.trace_id)!));
    const throughX = [...traces.values()].filter(through);
    console.log(`tracer-gives-up: ${published.length} traces published, ${throughX.length} of the ledger's went through the left-out block, published as ${cut.length} incomplete pieces`);
    // The left-out transactions had parents or children elsewhere: their traces end in incomplete pieces.
    if ([...lost].some((h) => byHash.get(h)!.in_msg !== null || byHash.get(h)!.out_msgs.length > 0)) expect(cut.length).toBeGreaterThan(0);

    // The streamer: every transaction of a followed trace after the block, not through it, was streamed confirmed; none of the block's.
    sse!.close();
    await sse!.done;
    const streamed = new Set(received.filter((f) => f.data.type === 'transactions' && f.data.finality === 'confirmed').flatMap((f) => (f.data.transactions as { hash: string }[]).map((t) => t.hash)));
    const accounts = new Set(rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.account))));
    const expected = [...expectedTransactions(rounds, accounts, M - 1, STOP_AT).keys()].filter((h) => !through(traceOf.get(h)!));
    expect(expected.length).toBeGreaterThan(20);
    expect(expected.filter((h) => !streamed.has(h))).toEqual([]);
    expect([...streamed].filter((h) => lost.has(h))).toEqual([]);
  });
});
