/**
 * The stored-up-to watermark against adversarial arrival orders, on the real Kafka and ClickHouse with
 * the real writer: a block's meta before its records, records of one kind but not the others, a
 * masterchain block whose shard block is missing, a dead-lettered record. The messages are the
 * decoder's own output for real mainnet blocks, produced by the test in the order it chooses.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, encodeRawBlock, ensureTopics, type RawBlock, topicNames, topicSpecs } from '@tonstream/bus';
import { decodeMessage, type DecodedBlock } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, readWatermark, type Store, type Watermark } from '@tonstream/store';
import { createWriter, createWriterMetrics, type Writer } from '@tonstream/writer-service';
import { type Admin, type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_wm_${runId}_`;
const database = `tonstream_wm_${runId}`;
const topics = topicNames(prefix);
const PARTITIONS = { transactions: 4, messages: 4, accountStates: 4 };

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let store: Store;
let writer: Writer;

const fixtures = fixtureRawBlocks({ withAccountState: true });
const byName = (part: string) => fixtures.find((f) => f.file.includes(part))!;

/** The decoder's messages for a fixture block, as if the masterchain block `mcSeqno` committed it. */
function decoded(raw: RawBlock, mcSeqno: number, mc?: { blocks: number; indexFrom?: number }): DecodedBlock {
  const out = decodeMessage(encodeRawBlock({ ...raw, mc_seqno: mcSeqno, mc_blocks: mc?.blocks, index_from: mc?.indexFrom }), null, PARTITIONS);
  if (!out.ok) throw out.error;
  return out.decoded;
}

const asMessages = (records: DecodedBlock['transactions']): Message[] => records.map((r) => ({ key: r.key, value: r.value, partition: r.partition, headers: r.headers }));
const send = (topic: string, records: DecodedBlock['transactions']) => (records.length === 0 ? Promise.resolve() : producer.send({ topic, messages: asMessages(records) }).then(() => {}));
const sendMeta = (b: DecodedBlock) => send(topics.blockMeta, [b.meta]);
const sendRecords = async (b: DecodedBlock, kinds: ('transactions' | 'messages' | 'accountStates')[]) => {
  const topicOf = { transactions: topics.transactions, messages: topics.messages, accountStates: topics.accountStates };
  for (const kind of kinds) await send(topicOf[kind], b[kind]);
};
/** Waits until the writer's health (it checks the watermark after each batch and every second) satisfies `check`. */
const writerReports = (what: string, check: (details: Record<string, unknown>) => boolean) => eventually(what, async () => (check(writer.health().details ?? {}) ? true : undefined), 30_000, 50);
const watermark = (): Promise<Watermark | null> => readWatermark(store);

beforeAll(async () => {
  const logger = createLogger({ level: 'error' });
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-wm-${runId}`, logger });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  store = createStore({ url: CLICKHOUSE_URL, database });
  writer = createWriter({ kafka, topics, store, logger, metrics: createWriterMetrics(createRegistry('writer')), groupId: `${prefix}writer`, flushMs: 50 });
  await writer.start();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await writer?.stop();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`);
  await store?.close();
  await admin?.deleteTopics({ topics: Object.values(topics) }).catch(() => {});
  await admin?.disconnect();
});

describe('the watermark', () => {
  // Masterchain seqno 100 commits a masterchain block and one shard block (a real shard block with
  // 329 transactions); 101 commits another masterchain block and a shard block.
  const mc100 = decoded(byName('17734191').raw, 100, { blocks: 2, indexFrom: 100 });
  const shard100 = decoded(byName('30816553').raw, 100);
  const mc101 = decoded(byName('24374597').raw, 101, { blocks: 2 });
  const shard101 = decoded(byName('52111590').raw, 101);

  it('does not move while a committed block, or any kind of its records, is missing', async () => {
    await sendMeta(mc100);
    await sendRecords(mc100, ['transactions', 'messages', 'accountStates']);
    await writerReports('block 100 waiting for a block meta', (d) => d.watermark_waiting === 'masterchain block 100: 1 of 2 block metas stored');
    expect(await watermark()).toBeNull();
    expect(writer.health().details).toMatchObject({ watermark_mc_seqno: null, watermark_waiting: 'masterchain block 100: 1 of 2 block metas stored' });

    // The shard block's meta arrives before its records.
    await sendMeta(shard100);
    await writerReports('block 100 waiting for transactions', (d) => /has 0 of 329 transactions stored$/.test(String(d.watermark_waiting)));
    expect(await watermark()).toBeNull();
    expect(writer.health().details?.watermark_waiting).toMatch(/^masterchain block 100: 0:8000000000000000:30816553 has 0 of 329 transactions stored$/);

    await sendRecords(shard100, ['transactions']);
    await writerReports('block 100 waiting for messages', (d) => /messages stored$/.test(String(d.watermark_waiting)));
    expect(await watermark()).toBeNull();
    expect(writer.health().details?.watermark_waiting).toMatch(/0:8000000000000000:30816553 has 0 of \d+ messages stored$/);

    await sendRecords(shard100, ['messages', 'accountStates']);
    await eventually('the watermark at 100', async () => ((await watermark())?.mc_seqno === 100 ? true : undefined), 20_000, 100);
    expect(await watermark()).toEqual({ mc_seqno: 100, gen_utime: Number(mc100.block.gen_utime) });
  });

  it('holds, and says it is stuck, when a missing record was dead-lettered', async () => {
    await sendMeta(mc101);
    await sendMeta(shard101);
    await sendRecords(mc101, ['transactions', 'messages', 'accountStates']);
    await sendRecords(shard101, ['messages', 'accountStates']);
    // The shard block's transactions with one line corrupted: refused, so the block cannot complete.
    const bundles = shard101.transactions.map((r, i) => (i === 0 ? { ...r, value: Buffer.from(r.value.toString().replace(/^\{"account":"/, '{"account":"x')) } : r));
    await send(topics.transactions, bundles);
    // Stuck once every record but the refused one is stored: what the reason says then.
    const stuck = /watermark held at 100: masterchain block 101: 0:6000000000000000:52111590 has \d+ of 30 transactions stored \(1 of its records are in the dead-letter topic\)/;
    await eventually('the watermark stuck on the refused record', async () => (stuck.test(writer.health().reasons.join('; ')) ? true : undefined), 30_000, 50);
    expect(await watermark()).toMatchObject({ mc_seqno: 100 });
    const health = writer.health();
    expect(health.status).toBe('degraded');
    expect(health.details).toMatchObject({ watermark_mc_seqno: 100, watermark_stuck: true });
    expect(health.reasons.join('; ')).toMatch(stuck);

    // Replayed intact (e.g. after a fixed decoder), the block completes.
    await sendRecords(shard101, ['transactions']);
    await eventually('the watermark at 101', async () => ((await watermark())?.mc_seqno === 101 ? true : undefined), 20_000, 100);
    expect(writer.health().details).toMatchObject({ watermark_mc_seqno: 101, watermark_stuck: false });
  });
});
