/**
 * No poison pills, on the real Kafka and ClickHouse: malformed records, records over the size limit
 * and a transaction without `in_msg` in every record topic, and a truncated raw block, go to their
 * dead-letter topics with the reason and where they came from, while every good record around them
 * is stored and neither the decoder nor the writer stops. A block whose records the broker refuses
 * is dead-lettered too, and topics that take too small messages stop the decoder at start.
 */
import { randomUUID } from 'node:crypto';
import { createKafka, encodeRawBlock, TopicConfigError, topicNames, topicSpecs, type Topics } from '@tonstream/bus';
import { createDecoder, createDecoderMetrics, type Decoder } from '@tonstream/decoder-service';
import { fixtureRawBlocks } from '@tonstream/decoder-service/test-support';
import { MAX_RECORD_CHARS, transactionRow } from '@tonstream/records';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, type Store } from '@tonstream/store';
import { createWriter, createWriterMetrics, type Writer } from '@tonstream/writer-service';
import { type Admin, type Kafka, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_dlq_${runId}_`;
const database = `tonstream_dlq_${runId}`;
const topics = topicNames(prefix);
const fixtures = fixtureRawBlocks();
const logLines: string[] = [];
const logger = createLogger({ level: 'info', write: (line) => logLines.push(line) });

type Dead = { topic: string; key: string | null; value: string; headers: Record<string, string> };

let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let store: Store;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-dlq-${runId}`, logger: logger.child({ module: 'kafka' }) });
  admin = kafka.admin();
  await admin.connect();
  store = createStore({ url: CLICKHOUSE_URL, database });
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
});

afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await producer?.disconnect();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`);
  await store?.close();
  await admin?.disconnect();
});

/** Every message of a topic, from the beginning, once `count` are there. */
async function readAll(topic: string, count: number): Promise<Dead[]> {
  const out: Dead[] = [];
  const consumer = kafka.consumer({ groupId: `${prefix}reader-${randomUUID().slice(0, 6)}`, maxBytes: 128 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          out.push({ topic, key: message.key?.toString() ?? null, value: message.value?.toString() ?? '', headers });
          if (out.length >= count) resolve();
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

const counter = async (m: { get(): Promise<{ values: { labels: Record<string, string | number>; value: number }[] }> }, label: string, value: string) =>
  (await m.get()).values.filter((v) => v.labels[label] === value).reduce((n, v) => n + v.value, 0);

async function startPipeline(t: Topics, options: { maxMessageBytes?: number; store?: Store } = {}) {
  const decoderMetrics = createDecoderMetrics(createRegistry('decoder'));
  const writerMetrics = createWriterMetrics(createRegistry('writer'));
  const decoder: Decoder = createDecoder({ kafka, topics: t, logger: logger.child({ module: 'decoder' }), metrics: decoderMetrics, groupId: `${t.blocks}-decoder`, maxMessageBytes: options.maxMessageBytes });
  const writer: Writer = createWriter({ kafka, topics: t, store: options.store ?? store, logger: logger.child({ module: 'writer' }), metrics: writerMetrics, groupId: `${t.blocks}-writer`, flushMs: 100, maxMessageBytes: options.maxMessageBytes });
  await decoder.start();
  await writer.start();
  cleanup.push(() => writer.stop(), () => decoder.stop());
  let failed: unknown;
  decoder.done.catch((err: unknown) => (failed = err));
  writer.done.catch((err: unknown) => (failed = err));
  return { decoder, writer, decoderMetrics, writerMetrics, alive: () => failed === undefined };
}

describe('dead letters', () => {
  let p: Awaited<ReturnType<typeof startPipeline>>;
  const good = fixtures.filter((f) => f.records.transactions.length > 0 && f.records.transactions.length < 100);

  beforeAll(async () => {
    p = await startPipeline(topics);
    cleanup.push(() => admin.deleteTopics({ topics: Object.values(topics) }));
  });

  it('refuses bad records in every record topic and a truncated raw block, stores every good record, and keeps running', async () => {
    const real = good[0].records;
    const tx = transactionRow(real.transactions[0]);
    const huge = JSON.stringify({ ...tx, padding: 'x'.repeat(MAX_RECORD_CHARS) });
    const noInMsg = JSON.stringify({ ...tx, in_msg: undefined });
    // One bundle per record topic: a good record of another block, then the bad ones.
    const bad: Record<'transactions' | 'messages' | 'accountStates' | 'blockMeta', string[]> = {
      transactions: [noInMsg, '{"account":', huge],
      messages: [JSON.stringify({ ...real.messages[0], direction: 'sideways' }), 'not json', huge],
      accountStates: [JSON.stringify({ account: 'nope', balance: '-1' }), '[]', huge],
      blockMeta: ['{}'],
    };
    for (const [topic, lines] of Object.entries(bad)) {
      await producer.send({ topic: topics[topic as keyof typeof bad], messages: [{ key: `garbage-${topic}`, value: lines.join('\n'), headers: { mc_seqno: '1' } }] });
    }
    const truncated = encodeRawBlock(good[1].raw).subarray(0, 5000);
    await producer.send({ topic: topics.blocks, messages: [{ key: 'truncated', value: truncated }] });
    await producer.send({ topic: topics.blocks, messages: good.map((f) => ({ key: `${f.raw.workchain}:${f.raw.shard}:${f.raw.seqno}`, value: encodeRawBlock(f.raw) })) });

    const expectedTx = good.flatMap((f) => f.records.transactions.map((t) => t.hash)).sort();
    const expectedMessages = good.reduce((n, f) => n + f.records.messages.length, 0);
    // Each table's rows come in their own batches: wait for all three.
    await eventually('every good transaction, message and block stored', async () => {
      const [t] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.transactions FINAL`);
      const [m] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.messages FINAL`);
      const [b] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.blocks FINAL`);
      return Number(t.c) === expectedTx.length && Number(m.c) >= expectedMessages && Number(b.c) === good.length ? true : undefined;
    });
    const stored = await store.query<{ hash: string }>(`SELECT hash FROM ${database}.transactions FINAL ORDER BY hash`);
    expect(stored.map((r) => r.hash)).toEqual(expectedTx);
    const [messages] = await store.query<{ c: string }>(`SELECT count() AS c FROM ${database}.messages FINAL`);
    expect(Number(messages.c)).toBe(expectedMessages);

    const refusedLines = Object.values(bad).reduce((n, l) => n + l.length, 0);
    const dead = await readAll(topics.recordsDeadLetters, refusedLines);
    expect(dead).toHaveLength(refusedLines);
    const reasons = Object.fromEntries(Object.keys(bad).map((t) => [topics[t as keyof typeof bad], dead.filter((d) => d.headers.source_topic === topics[t as keyof typeof bad]).map((d) => d.headers.error)]));
    expect(reasons[topics.transactions]).toEqual([
      'transactions record.in_msg: expected an object, got nothing (the field is missing)',
      expect.stringMatching(/^transactions record is not JSON/),
      expect.stringMatching(/^transactions record of \d+ characters is over the 8388608-character record limit$/),
    ]);
    expect(reasons[topics.messages]).toEqual([expect.stringContaining('.direction: expected one of "in", "out"'), expect.stringMatching(/not JSON/), expect.stringMatching(/over the 8388608-character record limit/)]);
    expect(reasons[topics.accountStates]).toEqual([expect.stringContaining('accountStates record.account: expected a raw address'), 'accountStates record: expected an object, got an array', expect.stringMatching(/over the/)]);
    expect(reasons[topics.blockMeta]).toEqual([expect.stringContaining('blocks record.workchain: expected an integer')]);
    for (const d of dead) {
      expect(d.headers).toMatchObject({ source_partition: expect.stringMatching(/^\d+$/), source_offset: expect.stringMatching(/^\d+$/), source_line: expect.stringMatching(/^\d$/) });
      expect(d.key).toMatch(/^garbage-/);
    }
    // The refused text itself is kept, e.g. the transaction without in_msg.
    expect(dead.find((d) => d.headers.error.includes('in_msg'))?.value).toBe(noInMsg);

    const blockDead = await readAll(topics.blocksDeadLetters, 1);
    expect(blockDead[0]).toMatchObject({ key: 'truncated', headers: { error_kind: 'codec', source_topic: topics.blocks } });
    expect(Buffer.from(blockDead[0].value, 'latin1').length).toBeGreaterThan(0);

    for (const topic of [topics.transactions, topics.messages, topics.accountStates]) expect(await counter(p.writerMetrics.deadLetters, 'topic', topic), topic).toBe(3);
    expect(await counter(p.writerMetrics.deadLetters, 'topic', topics.blockMeta)).toBe(1);
    expect(await counter(p.decoderMetrics.errors, 'kind', 'codec')).toBe(1);
    expect(p.alive()).toBe(true);
    expect(p.writer.health().status).not.toBe('error');
    expect(p.decoder.health().status).toBe('ok');
  });
});

describe('records the broker refuses', () => {
  // Above the largest raw fixture block (511 KB), below the records of the biggest blocks.
  const limit = 600 * 1024;
  const topics2 = topicNames(`${prefix}small_`);

  beforeAll(async () => {
    // Record topics with one partition, so a big block's records make one message over the limit.
    await admin.createTopics({ topics: topicSpecs(topics2, 1, limit), waitForLeaders: true });
    cleanup.push(() => admin.deleteTopics({ topics: Object.values(topics2) }));
  });

  it('stops the decoder at start when existing topics take smaller messages than it needs', async () => {    const strict = createDecoder({ kafka, topics: topics2, logger, metrics: createDecoderMetrics(createRegistry('decoder')), groupId: `${prefix}strict` });
    const err = await strict.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    await strict.stop().catch(() => {});
    expect(err).toBeInstanceOf(TopicConfigError);
    expect((err as Error).message).toContain(`topic ${topics2.transactions} has max.message.bytes=${limit}, needs at least 67108864`);
  });

  it('dead-letters a block whose records are over the topic limit and publishes the blocks around it', async () => {
    const store2 = createStore({ url: CLICKHOUSE_URL, database: `${database}_small` });
    cleanup.push(async () => {
      await store2.command(`DROP DATABASE IF EXISTS ${database}_small`);
      await store2.close();
    });
    const p = await startPipeline(topics2, { maxMessageBytes: limit, store: store2 });
    const big = fixtures.find((f) => f.raw.boc.length < limit - 4096 && Buffer.byteLength(f.records.messages.map((m) => JSON.stringify(m)).join('\n')) > limit)!;
    const small = fixtures.filter((f) => f !== big && f.records.transactions.length > 0 && f.records.transactions.length < 40);
    expect(big).toBeDefined();
    const all = [small[0], big, small[1]];
    await producer.send({ topic: topics2.blocks, messages: all.map((f) => ({ key: `${f.raw.workchain}:${f.raw.shard}:${f.raw.seqno}`, value: encodeRawBlock(f.raw) })) });

    const dead = await readAll(topics2.blocksDeadLetters, 1);
    expect(dead[0]).toMatchObject({ key: `${big.raw.workchain}:${big.raw.shard}:${big.raw.seqno}`, headers: { error_kind: 'produce', source_topic: topics2.blocks } });
    expect(dead[0].headers.error).toMatch(/Kafka refused the block's records \((MESSAGE_TOO_LARGE|RECORD_LIST_TOO_LARGE)\)/);
    const expected = [small[0], small[1]].map((f) => f.raw.seqno).sort();
    await eventually('the small blocks stored', async () => {
      const rows = await store2.query<{ seqno: number }>(`SELECT seqno FROM ${database}_small.blocks FINAL WHERE seqno IN (${[...expected, big.raw.seqno].join(',')}) ORDER BY seqno`);
      return rows.length === 2 ? rows.map((r) => Number(r.seqno)) : undefined;
    }).then((seqnos) => expect(seqnos).toEqual(expected));
    expect(await counter(p.decoderMetrics.errors, 'kind', 'produce')).toBe(1);
    expect(p.alive()).toBe(true);
  });
});
