/**
 * Dead letters the broker would refuse, on the real Kafka: the topics here take messages of at most
 * LIMIT bytes (the pipeline's own setting, `maxMessageBytes`, scaled down from 64 MiB). A raw block
 * just under the limit cannot go to the dead-letter topic as it is (the reason headers push it over),
 * and several large dead letters of one batch cannot go in one produce. Each must arrive (cut where it
 * must be, with its key, reason and origin) and the decoder and the writer must go on; a refused
 * produce would otherwise stop the decoder's consumer or be retried by the writer forever.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, encodeRawBlock, ensureTopics, TRUNCATED_FROM_HEADER, topicNames, topicSpecs } from '@tonstream/bus';
import { createDecoder, createDecoderMetrics, type Decoder } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, type Store } from '@tonstream/store';
import { createWriter, createWriterMetrics, type Writer } from '@tonstream/writer-service';
import { type Admin, type Kafka, type KafkaMessage, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
/** max.message.bytes of every topic of this test. */
const LIMIT = 256 * 1024;
/** A value this much under LIMIT fits a topic with its key, but not with a dead letter's headers too. */
const NEAR_LIMIT = LIMIT - 300;

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_dls_${runId}_`;
const database = `tonstream_dls_${runId}`;
const topics = topicNames(prefix);
const logger = createLogger({ level: 'warn', write: () => {} });

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let store: Store;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-dls-${runId}` });
  admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics, 1, LIMIT));
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  store = createStore({ url: CLICKHOUSE_URL, database });
});

afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await producer?.disconnect();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => {});
  await store?.close();
  await admin?.deleteTopics({ topics: Object.values(topics) }).catch(() => {});
  await admin?.disconnect();
});

/** Every message of a topic from its start, once there are `count`. */
async function readAll(topic: string, count: number, alive: () => void): Promise<KafkaMessage[]> {
  const out: KafkaMessage[] = [];
  const consumer = kafka.consumer({ groupId: `${prefix}reader-${randomUUID().slice(0, 6)}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void out.push(message) });
  try {
    await eventually(`${count} messages in ${topic}`, async () => (out.length >= count ? true : undefined), 60_000, 200, alive);
  } finally {
    await consumer.disconnect();
  }
  return out;
}
const header = (m: KafkaMessage, name: string) => m.headers?.[name]?.toString();
/** Sends each message in a request of its own: together they would be over the topic's limit. */
const sendEach = async (topic: string, messages: { key: string; value: Buffer | string; headers?: Record<string, string> }[]) => {
  for (const m of messages) await producer.send({ topic, messages: [m] });
};

describe('dead letters too big for one produce', () => {
  it('decoder: three large undecodable raw blocks of one batch and one just under the limit all reach the dead-letter topic, and decoding goes on', async () => {
    // Before the decoder starts, so that one fetch takes them all.
    const garbage = [0, 1, 2].map((i) => ({ key: 'garbage', value: Buffer.alloc(100 * 1024, 0x41 + i) }));
    const huge = { key: 'garbage', value: Buffer.alloc(NEAR_LIMIT, 0x5a) };
    await sendEach(topics.blocks, [...garbage, huge]);
    const decoder: Decoder = createDecoder({ kafka, topics, logger, metrics: createDecoderMetrics(createRegistry('decoder')), groupId: `${prefix}decoder`, maxMessageBytes: LIMIT });
    let failed: unknown;
    decoder.done.catch((err: unknown) => (failed = err));
    const alive = () => {
      if (failed) throw new Error(`the decoder stopped: ${(failed as Error).message}`);
    };
    await decoder.start();
    cleanup.push(() => decoder.stop());

    const dead = await readAll(topics.blocksDeadLetters, 4, alive);
    expect(dead.map((m) => [m.key?.toString(), header(m, 'error_kind'), header(m, 'source_offset'), header(m, TRUNCATED_FROM_HEADER) ?? null])).toEqual([
      ['garbage', 'codec', '0', null],
      ['garbage', 'codec', '1', null],
      ['garbage', 'codec', '2', null],
      ['garbage', 'codec', '3', String(NEAR_LIMIT)],
    ]);
    for (const [i, g] of garbage.entries()) expect(dead[i].value?.equals(g.value)).toBe(true);
    const cut = dead[3].value!;
    expect(cut.length).toBeGreaterThan(LIMIT - 4096);
    expect(cut.equals(huge.value.subarray(0, cut.length))).toBe(true);
    expect(header(dead[3], 'error')).toBeTruthy();

    // Still decoding: a good block after them comes out as its block meta.
    const good = fixtureRawBlocks().find((f) => f.records.transactions.length > 0 && encodeRawBlock(f.raw).length < LIMIT / 2)!;
    const goodKey = `${good.raw.workchain}:${good.raw.shard}:${good.raw.seqno}`;
    await producer.send({ topic: topics.blocks, messages: [{ key: 'garbage', value: encodeRawBlock(good.raw) }] });
    const metas = await readAll(topics.blockMeta, 1, alive);
    expect(metas.map((m) => m.key?.toString())).toEqual([goodKey]);
  });

  it("writer: refused records larger together than the limit, and one that is not alone, reach the dead-letter topic and the offsets are committed", async () => {
    const writer: Writer = createWriter({ kafka, topics, store, logger, metrics: createWriterMetrics(createRegistry('writer')), groupId: `${prefix}writer`, flushMs: 100, maxMessageBytes: LIMIT });
    let failed: unknown;
    writer.done.catch((err: unknown) => (failed = err));
    const alive = () => {
      if (failed) throw new Error(`the writer stopped: ${(failed as Error).message}`);
    };
    const bad = (n: number, c: string) => `{"account":"${c.repeat(n)}`;
    const lines = [bad(120 * 1024, 'a'), bad(120 * 1024, 'b'), bad(NEAR_LIMIT - 100, 'c')];
    // (The decoder's test published a block's records here before: those are stored.)
    const [{ high: base }] = await admin.fetchTopicOffsets(topics.transactions);
    const at = (i: number) => String(Number(base) + i);
    await sendEach(
      topics.transactions,
      lines.map((value) => ({ key: 'refused', value, headers: { mc_seqno: '1' } })),
    );
    await writer.start();
    cleanup.push(() => writer.stop());

    const dead = await readAll(topics.recordsDeadLetters, 3, alive);
    expect(dead.map((m) => [m.key?.toString(), header(m, 'source_topic'), header(m, 'source_offset'), header(m, TRUNCATED_FROM_HEADER) ?? null])).toEqual([
      ['refused', topics.transactions, at(0), null],
      ['refused', topics.transactions, at(1), null],
      ['refused', topics.transactions, at(2), String(lines[2].length)],
    ]);
    expect(dead[0].value?.toString()).toBe(lines[0]);
    expect(dead[1].value?.toString()).toBe(lines[1]);
    expect(lines[2].startsWith(dead[2].value!.toString())).toBe(true);
    expect(header(dead[2], 'error')).toBeTruthy();
    await eventually('the offsets committed past the refused records', async () => {
      const [t] = await admin.fetchOffsets({ groupId: `${prefix}writer`, topics: [topics.transactions] });
      return t.partitions.every((p) => p.offset === at(3)) ? true : undefined;
    }, 60_000, 200, alive);
  });
});
