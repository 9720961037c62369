/**
 * The decoder and the writer in this process against the real Kafka and ClickHouse: the mainnet
 * fixture blocks go in as raw block messages and must come out in ClickHouse exactly once, also
 * after a replay; a malformed message goes to the dead-letter topic without stopping the rest.
 * Expected values come from test/fixtures/mainnet/SOURCES.md and its tongo oracles, and for account
 * states from @ton/core, never from this project's decoder.
 * Topics (prefix), consumer groups and the database are unique per run.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, encodeRawBlock, type RawAccountState, topicNames } from '@tonstream/bus';
import { createDecoder, createDecoderMetrics, type Decoder, reindex } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, int32, str, type Store, uint } from '@tonstream/store';
import { createWriter, createWriterMetrics, type Writer, type WriterMetrics } from '@tonstream/writer-service';
import { type Admin, type Kafka, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreAccountState, localnetAccountStates } from '../../packages/block/src/test-support/localnet-fixtures.js';
import { type SourcesBlock, sourcesBlocks, tongoOracles } from '../support/mainnet-sources.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_dw_${runId}_`;
const database = `tonstream_it_${runId}`;
const topics = topicNames(prefix);

const sources = sourcesBlocks();
const sourcesTxCount = sources.reduce((n, b) => n + b.transactions, 0);
const oracles = tongoOracles();
const fixtures = fixtureRawBlocks({ withAccountState: true });
// The decoder reads the account states a raw block carries without matching them to the block's
// transactions, so the local network's real states (one per status) can ride along with a mainnet block.
fixtures.find((f) => f.raw.account_states.length > 0)!.raw.account_states.push(...localnetAccountStates().map((s): RawAccountState => ({ account: s.account, boc: s.boc, last_trans_lt: s.lastTransLt, last_trans_hash: s.lastTransHash })));
const attachedStates = fixtures.flatMap((f) => f.raw.account_states);

const logLines: string[] = [];
const logger = createLogger({ level: 'info', write: (line) => logLines.push(line) });
let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let store: Store;
let decoder: Decoder;
let writer: Writer;
let writerMetrics: WriterMetrics;

async function count(table: string, final: boolean): Promise<number> {
  const rows = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.${table}${final ? ' FINAL' : ''}`);
  return Number(rows[0].c);
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const problems = logLines.filter((l) => /"level":"(warn|error)"/.test(l)).slice(-20);
      throw new Error(`timed out waiting for ${what}; last warnings:\n${problems.join('\n')}\nlast log lines:\n${logLines.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function writtenRows(table: string): Promise<number> {
  const m = await writerMetrics.rows.get();
  return m.values.find((v) => v.labels.table === table)?.value ?? 0;
}

/** `workchain:shard:seqno` with the shard as SOURCES.md writes it; ClickHouse gives UInt64 shards in decimal. */
const blockKey = (workchain: number, shard: string | bigint, seqno: number) => `${workchain}:${BigInt(shard).toString(16).padStart(16, '0')}:${seqno}`;
const sourcesKey = (b: SourcesBlock) => blockKey(b.workchain, `0x${b.shard}`, b.seqno);
const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const blockFilter = (b: SourcesBlock) => `workchain = ${int32(b.workchain)} AND shard = ${uint(BigInt(`0x${b.shard}`))} AND block_seqno = ${uint(b.seqno)}`;

/** Transactions stored per block, from the transactions table (not the blocks table's tx_count). */
async function storedTxCounts(s: Store, db: string): Promise<Record<string, number>> {
  const rows = await s.query<{ workchain: number; shard: string; block_seqno: number; c: string }>(`SELECT workchain, shard, block_seqno, count() AS c FROM ${db}.transactions FINAL GROUP BY workchain, shard, block_seqno`);
  return Object.fromEntries(rows.map((r) => [blockKey(r.workchain, r.shard, r.block_seqno), Number(r.c)]));
}

/** SOURCES.md's accounts/txs column: transactions per block (blocks without any have no rows). */
function sourcesTxCounts(): Record<string, number> {
  return Object.fromEntries(sources.filter((b) => b.transactions > 0).map((b) => [sourcesKey(b), b.transactions]));
}

/** The stored transaction hashes of an oracle's block, as the oracle writes them (sorted hex). */
async function storedTxHashesHex(s: Store, db: string, b: SourcesBlock): Promise<string[]> {
  const rows = await s.query<{ hash: string }>(`SELECT hash FROM ${db}.transactions FINAL WHERE ${blockFilter(b)}`);
  return rows.map((r) => hex(r.hash)).sort();
}

/** Message rows per direction of the transactions of one block. */
async function storedMessageCounts(b: SourcesBlock): Promise<{ in: number; out: number }> {
  const rows = await store.query<{ direction: 'in' | 'out'; c: string }>(
    `SELECT direction, count() AS c FROM ${database}.messages FINAL WHERE tx_hash IN (SELECT hash FROM ${database}.transactions FINAL WHERE ${blockFilter(b)}) GROUP BY direction`,
  );
  return { in: 0, out: 0, ...Object.fromEntries(rows.map((r) => [r.direction, Number(r.c)])) };
}

/**
 * Message rows the stored transactions call for: each has its out messages plus its inbound message
 * if any (tick-tock transactions have none). Read from the transactions table once it is complete.
 */
async function messagesOfStoredTransactions(): Promise<number> {
  const rows = await store.query<{ c: string }>(`SELECT sum(out_msg_count) + countIf(in_msg_hash != '') AS c FROM ${database}.transactions FINAL`);
  return Number(rows[0].c);
}

/** The account_states_latest row of each attached state, as @ton/core reads its BoC. */
function expectedStateRows() {
  return attachedStates
    .map((s) => {
      const core = coreAccountState(s.boc);
      return { account: s.account, status: core.status, balance: core.balance, last_trans_lt: s.last_trans_lt, account_state_hash: core.account_state_hash, code_hash: core.code_hash ?? '', data_hash: core.data_hash ?? '', frozen_hash: core.frozen_hash ?? '' };
    })
    .sort(byAccount);
}

const byAccount = (a: { account: string }, b: { account: string }) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0);

async function produceFixtures() {
  await producer.send({ topic: topics.blocks, messages: fixtures.map((f) => ({ key: `${f.raw.workchain}:${f.raw.shard}:${f.raw.seqno}`, value: encodeRawBlock(f.raw) })) });
}

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-dw-${runId}`, logger: logger.child({ module: 'kafka' }) });
  admin = kafka.admin();
  await admin.connect();
  store = createStore({ url: CLICKHOUSE_URL, database });
  decoder = createDecoder({ kafka, topics, logger: logger.child({ module: 'decoder' }), metrics: createDecoderMetrics(createRegistry('decoder')), groupId: `${prefix}decoder` });
  writerMetrics = createWriterMetrics(createRegistry('writer'));
  writer = createWriter({ kafka, topics, store, logger: logger.child({ module: 'writer' }), metrics: writerMetrics, groupId: `${prefix}writer`, flushMs: 100 });
  // The decoder creates the topics, so the raw blocks can be produced before it consumes.
  await decoder.start();
  await writer.start();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await writer?.stop();
  await decoder?.stop();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`);
  await store?.close();
  await admin?.deleteTopics({ topics: [...new Set([...Object.values(topics), decoder.deadLetterTopic])] }).catch(() => {});
  await admin?.disconnect();
});

describe('decoder -> Kafka -> writer -> ClickHouse', () => {
  it('lands every fixture transaction, message and block exactly once; a malformed message goes to the DLQ', async () => {
    expect(fixtures.map((f) => f.file).sort()).toEqual(sources.map((b) => b.file).sort());
    await producer.send({ topic: topics.blocks, messages: [{ key: 'bad:block', value: Buffer.from('definitely not a raw block') }] });
    await produceFixtures();

    await waitFor('all transactions and blocks in ClickHouse', async () => (await count('transactions', true)) === sourcesTxCount && (await count('blocks', true)) === sources.length);
    const expectedMessages = await messagesOfStoredTransactions();
    await waitFor('the writer to settle', async () => (await writtenRows('messages')) === expectedMessages && (await writtenRows('account_states_latest')) === attachedStates.length);

    // Every block of SOURCES.md, with its transaction count, in the blocks table and in the transactions table.
    const blocks = await store.query<{ workchain: number; shard: string; seqno: number; tx_count: number }>(`SELECT workchain, shard, seqno, tx_count FROM ${database}.blocks FINAL`);
    expect(Object.fromEntries(blocks.map((b) => [blockKey(b.workchain, b.shard, b.seqno), b.tx_count]))).toEqual(Object.fromEntries(sources.map((b) => [sourcesKey(b), b.transactions])));
    expect(await storedTxCounts(store, database)).toEqual(sourcesTxCounts());

    for (const oracle of oracles) {
      expect(await storedTxHashesHex(store, database, oracle.block), oracle.oracleFile).toEqual([...oracle.txHashes].sort());
      // Out rows: the oracle's OutMsgCnt per transaction. In rows: the oracle has no count of them, but
      // each inbound message of a block's transactions is listed once in its InMsgDescr (a dictionary
      // keyed by message hash); with no message in transit (msg_import_tr), as in these blocks, the
      // InMsgDescr length is the number of in rows.
      expect(await storedMessageCounts(oracle.block), oracle.oracleFile).toEqual({ in: oracle.inMsgDescrLength, out: oracle.outMessages });
    }

    const hashes = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL ORDER BY hash`);
    const byHash = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions_by_hash FINAL ORDER BY hash`);
    expect(byHash).toEqual(hashes);
    expect(await count('messages', true)).toBe(expectedMessages);
    // No duplicates were written: raw counts equal the deduplicated ones.
    for (const table of ['transactions', 'transactions_by_hash', 'messages', 'blocks']) expect(await count(table, false), table).toBe(await count(table, true));

    // One state per status went through the writer, each as @ton/core reads it.
    const states = await store.query<{ account: string }>(`SELECT account, status, balance, last_trans_lt, account_state_hash, code_hash, data_hash, frozen_hash FROM ${database}.account_states_latest FINAL`);
    expect(states.sort(byAccount)).toEqual(expectedStateRows());
    expect(new Set(expectedStateRows().map((r) => r.status))).toEqual(new Set(['active', 'frozen', 'uninit', 'nonexist']));

    // The malformed message is in the dead-letter topic with its error, and was logged with its key.
    const dlq = await admin.fetchTopicOffsets(decoder.deadLetterTopic);
    expect(dlq.reduce((n, p) => n + Number(p.high), 0)).toBe(1);
    const dead = await readOne(decoder.deadLetterTopic);
    expect(dead.key).toBe('bad:block');
    expect(dead.value).toBe('definitely not a raw block');
    expect(dead.headers).toMatchObject({ error_kind: 'codec', source_topic: topics.blocks });
    expect(logLines.some((l) => l.includes('sent to the dead-letter topic') && l.includes('"block_key":"bad:block"'))).toBe(true);
  });

  it('stores a replay of the same raw blocks once (FINAL counts unchanged)', async () => {
    const txHashes = async () => (await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL ORDER BY hash`)).map((r) => r.hash);
    const before = { tx: await count('transactions', true), msg: await count('messages', true), blocks: await count('blocks', true), hashes: await txHashes() };
    await produceFixtures();
    await waitFor('the replay to be written', async () => (await writtenRows('transactions')) === 2 * sourcesTxCount && (await writtenRows('blocks')) === 2 * sources.length);
    expect({ tx: await count('transactions', true), msg: await count('messages', true), blocks: await count('blocks', true), hashes: await txHashes() }).toEqual(before);
    expect(await storedTxCounts(store, database)).toEqual(sourcesTxCounts());
    for (const s of attachedStates) {
      const states = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.account_states_latest FINAL WHERE account = ${str(s.account)}`);
      expect(Number(states[0].c), s.account).toBe(1);
    }
  });

  it('reindex replays ton.blocks through a decoder of its own: a table a new migration adds is filled, nothing doubles', async () => {
    const tops = async () => (await store.query<{ k: string }>(`SELECT concat(toString(mc_seqno), ' ', toString(workchain), ':', hex(shard), ':', toString(seqno)) AS k FROM ${database}.shard_tops FINAL ORDER BY k`)).map((r) => r.k);
    const before = { tx: await count('transactions', true), msg: await count('messages', true), blocks: await count('blocks', true), tops: await tops() };
    // SOURCES.md: the key block 46991999 references 4 basechain shards, 24374597 one (seqno 29836493).
    expect(before.tops).toEqual(expect.arrayContaining(['24374597 0:8000000000000000:29836493', '46991999 0:E000000000000000:51757085']));
    // As if shard_tops were a table a new migration just created: empty, its rows still to be derived.
    await store.command(`TRUNCATE TABLE ${database}.shard_tops`);
    await store.command(`TRUNCATE TABLE ${database}.transactions_by_hash`);
    expect(await count('shard_tops', false)).toBe(0);

    const raw = (await admin.fetchTopicOffsets(topics.blocks)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
    const progress = await reindex({ kafka, topics, logger: logger.child({ module: 'reindex' }), metrics: createDecoderMetrics(createRegistry('reindex')), groupPrefix: prefix, pollMs: 100 });
    expect(progress).toMatchObject({ done: progress.partitions, replayed: raw, total: raw });
    // The topic holds the fixtures twice (first run and replay): the writer gets every record twice more.
    await waitFor('the reindexed records to be written', async () => (await writtenRows('transactions')) === 4 * sourcesTxCount && (await writtenRows('blocks')) === 4 * sources.length);
    await waitFor('shard_tops refilled', async () => (await tops()).length === before.tops.length);
    expect({ tx: await count('transactions', true), msg: await count('messages', true), blocks: await count('blocks', true), tops: await tops() }).toEqual(before);
    expect(await count('transactions_by_hash', true)).toBe(sourcesTxCount);
    // The one-off consumer group is gone; the live decoder's group is untouched.
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    expect(groups.filter((g) => g.startsWith(`${prefix}tonstream-decoder-reindex`))).toEqual([]);
    expect(groups).toContain(`${prefix}decoder`);
  });
});

describe('writer during a ClickHouse outage', () => {
  it('retries the same batch, commits nothing while ClickHouse is away, and lands every row once it is back', async () => {
    const run2 = `${prefix}outage_`;
    const topics2 = topicNames(run2);
    const database2 = `${database}_outage`;
    const proxy = await startTcpProxy(new URL(CLICKHOUSE_URL));
    const direct = createStore({ url: CLICKHOUSE_URL, database: database2 });
    const viaProxy = createStore({ url: `http://127.0.0.1:${proxy.port}`, database: database2, requestTimeoutMs: 5_000 });
    const metrics2 = createWriterMetrics(createRegistry('writer'));
    const writer2 = createWriter({ kafka, topics: topics2, store: viaProxy, logger: logger.child({ module: 'writer2' }), metrics: metrics2, groupId: `${run2}writer`, flushMs: 100, retry: { initialMs: 100, maxMs: 400, factor: 2 } });
    const decoder2 = createDecoder({ kafka, topics: topics2, logger: logger.child({ module: 'decoder2' }), metrics: createDecoderMetrics(createRegistry('decoder')), groupId: `${run2}decoder` });
    try {
      await writer2.start(); // migrates through the proxy while it is up
      proxy.setDown(true);
      await decoder2.start();
      await producer.send({ topic: topics2.blocks, messages: fixtures.map((f) => ({ key: `${f.raw.workchain}:${f.raw.shard}:${f.raw.seqno}`, value: encodeRawBlock(f.raw) })) });

      await waitFor('the writer to retry a few times', async () => (await metrics2.retries.get()).values[0].value >= 4);
      expect((await metrics2.clickhouseUp.get()).values[0].value).toBe(0);
      expect(writer2.health().status).toBe('degraded');
      expect(Number((await direct.query<{ c: string }>(`SELECT count() AS c FROM ${database2}.transactions`))[0].c)).toBe(0);
      const committed = await admin.fetchOffsets({ groupId: `${run2}writer`, topics: [topics2.transactions, topics2.messages, topics2.blockMeta] });
      expect(committed.flatMap((t) => t.partitions.map((p) => Number(p.offset))).every((o) => o === -1)).toBe(true);
      expect(logLines.some((l) => l.includes('ClickHouse unavailable, retrying the same batch') && l.includes('"level":"warn"'))).toBe(true);

      proxy.setDown(false);
      await waitFor('every row after the outage', async () => Number((await direct.query<{ c: string }>(`SELECT count() AS c FROM ${database2}.transactions FINAL`))[0].c) === sourcesTxCount);
      await waitFor('the blocks after the outage', async () => Number((await direct.query<{ c: string }>(`SELECT count() AS c FROM ${database2}.blocks FINAL`))[0].c) === sources.length);
      expect(await storedTxCounts(direct, database2)).toEqual(sourcesTxCounts());
      for (const oracle of oracles) expect(await storedTxHashesHex(direct, database2, oracle.block), oracle.oracleFile).toEqual([...oracle.txHashes].sort());
      expect((await metrics2.clickhouseUp.get()).values[0].value).toBe(1);
      // Offsets get committed once the rows are in.
      // Every block meta message consumed is committed (a one-partition topic): at least one per block,
      // more when the decoder's producer retried a send under load (the rows are idempotent, not the log).
      await waitFor('offsets committed after the outage', async () => {
        const c = await admin.fetchOffsets({ groupId: `${run2}writer`, topics: [topics2.blockMeta] });
        const [end] = await admin.fetchTopicOffsets(topics2.blockMeta);
        return Number(end.high) >= sources.length && Number(c[0].partitions[0].offset) === Number(end.high);
      });
    } finally {
      await decoder2.stop();
      await writer2.stop();
      await proxy.close();
      await direct.command(`DROP DATABASE IF EXISTS ${database2}`);
      await Promise.all([direct.close(), viaProxy.close()]);
      await admin.deleteTopics({ topics: [...new Set([...Object.values(topics2), decoder2.deadLetterTopic])] }).catch(() => {});
    }
  });
});

async function readOne(topic: string): Promise<{ key: string; value: string; headers: Record<string, string> }> {
  const consumer = kafka.consumer({ groupId: `${prefix}dlq-reader` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    return await new Promise((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          resolve({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', headers });
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}
