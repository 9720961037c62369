import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { CONSUMER_FETCH, createKafka } from '@tonstream/bus';
import type { Kafka } from 'kafkajs';

/**
 * Test runs and benches each put their topics under a prefix of their own (KAFKA_TOPIC_PREFIX of the
 * services they start); without cleanup they stay on the local broker run after run, and a broker
 * holding thousands of them takes minutes to start. A run names a file in TONSTREAM_TOPIC_PREFIXES;
 * `startService` writes each prefix it passes on into it; at the end of the run the topics under those
 * prefixes, and only those, are deleted (other runs on the same broker keep theirs).
 */
export const PREFIXES_ENV = 'TONSTREAM_TOPIC_PREFIXES';

/** Notes a topic prefix this run uses (no-op outside a run that collects them, or for the empty prefix). */
export function recordTopicPrefix(prefix: string | undefined): void {
  const file = process.env[PREFIXES_ENV];
  if (file && prefix) appendFileSync(file, `${prefix}\n`);
}

/** Deletes the topics under the prefixes recorded in `file`; returns how many. */
export async function deleteRecordedTopics(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const prefixes = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))];
  if (prefixes.length === 0) return 0;
  const admin = createKafka({ brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), clientId: 'tonstream-test-cleanup' }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => prefixes.some((p) => t.startsWith(p)));
    // A few hundred names per request keeps each request well under the broker's size limits.
    for (let i = 0; i < topics.length; i += 200) await admin.deleteTopics({ topics: topics.slice(i, i + 200), timeout: 60_000 });
    return topics.length;
  } finally {
    await admin.disconnect();
  }
}

/** `node test/bench/dist/support/kafka-topics.js delete FILE` (scripts/bench.sh, when the benches are done). */
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [command, file] = process.argv.slice(2);
  if (command !== 'delete' || !file) {
    process.stderr.write('usage: kafka-topics.js delete FILE\n');
    process.exit(2);
  }
  const n = await deleteRecordedTopics(file);
  if (n > 0) process.stderr.write(`deleted the ${n} Kafka topics the run created\n`);
}

/**
 * Every message of `topic` as it is now (up to each partition's end when called), decoded, in offset
 * order per partition; [] for a missing or empty topic. Reads with a consumer group of its own.
 */
export async function readWholeTopic<T>(kafka: Kafka, topic: string, decode: (value: Buffer) => T): Promise<T[]> {
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic).catch(() => []);
  await admin.disconnect();
  const pending = new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high) - 1n]));
  if (pending.size === 0) return [];
  const out: T[] = [];
  const consumer = kafka.consumer({ groupId: `read-whole-topic-${randomUUID()}`, ...CONSUMER_FETCH });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          out.push(decode(message.value!));
          if (BigInt(message.offset) >= (pending.get(partition) ?? -1n)) pending.delete(partition);
          if (pending.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return out;
}
