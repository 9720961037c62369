/**
 * A Kafka consumer that dies while its process lives must not look healthy. On the real broker:
 * the streamer process, one of whose consumed topics is deleted under it (its fetches fail, kafkajs
 * retries, crashes the consumer, restarts it, and the restart crashes again), must turn /healthcheck
 * non-ok within seconds, say why, and then exit non-zero for its supervisor; and a consumer that
 * kafkajs will not restart (an error thrown from the batch handler) is reported at once.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, ensureTopics, topicNames, watchConsumer } from '@tonstream/bus';
import { createLogger } from '@tonstream/runtime';
import { createStore, migrate, type Store } from '@tonstream/store';
import type { Admin, Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
/** "Within seconds": a failed fetch is retried after 300 ms; the slack is for a loaded machine. */
const NOTICED_WITHIN_MS = 15_000;

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_cch_${runId}_`;
const database = `tonstream_cch_${runId}`;
const topics = topicNames(prefix);

let kafka: Kafka;
let admin: Admin;
let store: Store;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  kafka = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `it-cch-${runId}` });
  admin = kafka.admin();
  await admin.connect();
  store = createStore({ url: CLICKHOUSE_URL, database });
  // The streamer reads the watermark: an index to read it from keeps its health about the consumer only.
  await migrate(store);
});

afterAll(async () => {
  for (const p of procs) await p.stop();
  await store?.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => {});
  await store?.close();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin?.disconnect();
});

type Health = { status: string; reasons: string[] };
const healthOf = async (port: number): Promise<Health> => (await (await fetch(`http://127.0.0.1:${port}/healthcheck`)).json()) as Health;

describe('a consumer that dies while its process lives', () => {
  it('streamer: a consumed topic deleted under it turns /healthcheck non-ok within seconds, then the process exits 1', async () => {
    const metricsPort = await freePort();
    const streamer = startService(
      'streamer',
      {
        KAFKA_BROKERS,
        KAFKA_TOPIC_PREFIX: prefix,
        CLICKHOUSE_URL,
        CLICKHOUSE_DATABASE: database,
        STREAMER_PORT: String(await freePort()),
        METRICS_PORT: String(metricsPort),
        STREAMER_CHECK_API_KEYS: 'false',
        LOG_LEVEL: 'info',
      },
      join(tmpdir(), `tonstream-cch-${runId}`),
    );
    procs.push(streamer);
    const alive = () => {
      if (streamer.child.exitCode !== null) throw new Error(`the streamer exited (${streamer.child.exitCode}):\n${streamer.output().slice(-3000)}`);
    };
    await streamer.waitFor(/streamer reading/);
    await eventually('the streamer healthy', async () => ((await healthOf(metricsPort)).status === 'ok' ? true : undefined), 60_000, 200, alive);

    await admin.deleteTopics({ topics: [topics.blockMeta] });
    const deletedAt = Date.now();
    const noticed = await eventually('/healthcheck non-ok', async () => {
      const h = await healthOf(metricsPort);
      return h.status === 'ok' ? undefined : h;
    }, NOTICED_WITHIN_MS, 200, alive);
    expect(Date.now() - deletedAt).toBeLessThan(NOTICED_WITHIN_MS);
    expect(noticed.reasons.join('; ')).toMatch(/consumer (fetches failing|crashed)/);

    // kafkajs gives up fetching, restarts the consumer, and the restart cannot find the topic either.
    const code = await streamer.exited();
    expect(code).toBe(1);
    expect(streamer.output()).toMatch(/consumer crashed again before it rejoined its group/);
    // Not recreated behind the operator's back with the broker's defaults: a restart's ensureTopics does that, with the settings.
    expect(await admin.listTopics()).not.toContain(topics.blockMeta);
  }, 180_000);

  it('a consumer kafkajs does not restart (its batch handler threw) is in error at once, and stopped', async () => {
    const topic = `${prefix}thrower`;
    await ensureTopics(admin, [{ topic, numPartitions: 1, configEntries: [] }]);
    const logger = createLogger({ level: 'error', write: () => {} });
    const consumer = kafka.consumer({ groupId: `${prefix}thrower`, allowAutoTopicCreation: false });
    const watch = watchConsumer(consumer, logger);
    let stopped: Error | undefined;
    watch.stopped.catch((err: Error) => (stopped = err));
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachBatch: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'hash')");
        },
      });
      await eventually('joined', async () => (watch.health().status === 'ok' ? true : undefined), 30_000, 100);
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ value: 'x' }] });
      await producer.disconnect();
      await eventually('stopped', async () => stopped, 30_000, 100);
      expect(stopped?.message).toMatch(/kafkajs does not restart it: Cannot read properties of undefined/);
      expect(watch.health()).toEqual({ status: 'error', reasons: [stopped!.message] });
    } finally {
      await consumer.disconnect();
    }
  });
});
