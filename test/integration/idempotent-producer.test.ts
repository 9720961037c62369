/**
 * kafkajs's idempotent producer after a send that failed on one partition, on the real broker. The
 * broker appends the partitions of a request it takes and refuses the others; kafkajs then takes back
 * the sequence numbers of all of them, so the next records to a partition it appended carry numbers
 * the broker has seen: more than one are refused for good (OUT_OF_ORDER_SEQUENCE_NUMBER, what stopped
 * a decoder in CI), one is taken for a repeat and dropped without an error. `createIdempotentProducer`
 * must deliver every record after such a failure, each once.
 */
import { randomUUID } from 'node:crypto';
import { createIdempotentProducer, createKafka, kafkaErrorType } from '@tonstream/bus';
import type { Admin, Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
/** max.message.bytes of the test's topics: a value of LIMIT bytes is refused. */
const LIMIT = 16 * 1024;

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
let kafka: Kafka;
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS, clientId: `it-idem-${runId}` });
  admin = kafka.admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.deleteTopics({ topics: created }).catch(() => {});
  await admin?.disconnect();
});

async function newTopic(name: string): Promise<string> {
  const topic = `it_idem_${runId}_${name}`;
  await admin.createTopics({ topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: String(LIMIT) }] }], waitForLeaders: true });
  created.push(topic);
  return topic;
}

/** The values in partition 0 of `topic`, read from the broker once its high watermark is `count`. */
async function partitionValues(topic: string, count: number): Promise<string[]> {
  await eventually(`${count} records in ${topic}[0]`, async () => {
    const offsets = await admin.fetchTopicOffsets(topic);
    return Number(offsets.find((o) => o.partition === 0)?.high) >= count ? true : undefined;
  }, 30_000, 100);
  const values: string[] = [];
  const consumer = kafka.consumer({ groupId: `it_idem_${runId}_${randomUUID().slice(0, 6)}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => void (partition === 0 && values.push(String(message.value))) });
  try {
    await eventually(`${count} records read from ${topic}[0]`, async () => (values.length >= count ? true : undefined), 30_000, 100);
  } finally {
    await consumer.disconnect();
  }
  return values;
}

/** A request the broker takes for partition 0 and refuses for partition 1 (its record is too large). */
const halfRefused = (topic: string) => ({
  topicMessages: [{ topic, messages: [{ partition: 0, value: 'a1' }, { partition: 1, value: 'x'.repeat(LIMIT) }] }],
  acks: -1,
});
const toPartition0 = (topic: string, ...values: string[]) => ({ topic, acks: -1, messages: values.map((value) => ({ partition: 0, value })) });

describe('an idempotent producer after a half-refused request', () => {
  it('kafkajs alone is refused the next two records and drops the one after (the premise)', async () => {
    const topic = await newTopic('kafkajs');
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await expect(producer.sendBatch(halfRefused(topic))).rejects.toSatisfy((err) => kafkaErrorType(err) === 'MESSAGE_TOO_LARGE');
      const refused = await producer.send(toPartition0(topic, 'b1', 'b2')).then(() => undefined, kafkaErrorType);
      expect(refused).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
      await producer.send(toPartition0(topic, 'a2'));
      await producer.send(toPartition0(topic, 'end'));
    } finally {
      await producer.disconnect();
    }
    // a2's send succeeded, but the broker took it for a repeat of a1.
    expect(await partitionValues(topic, 2)).toEqual(['a1', 'end']);
  });

  it('createIdempotentProducer delivers every record after it, each once', async () => {
    const topic = await newTopic('ours');
    const producer = createIdempotentProducer(kafka, { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await expect(producer.sendBatch(halfRefused(topic))).rejects.toSatisfy((err) => kafkaErrorType(err) === 'MESSAGE_TOO_LARGE');
      await Promise.all([producer.send(toPartition0(topic, 'b1', 'b2')), producer.send(toPartition0(topic, 'a2'))]);
      await producer.send(toPartition0(topic, 'end'));
    } finally {
      await producer.disconnect();
    }
    expect(await partitionValues(topic, 5)).toEqual(['a1', 'b1', 'b2', 'a2', 'end']);
  });
});
