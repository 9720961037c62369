/**
 * The real servers are there and behave as the pipeline needs: Kafka carries large messages,
 * ClickHouse stores and returns rows exactly, Redis round-trips keys. Addresses come from the
 * environment (`deploy/local/services.sh env`) with the local defaults. A missing server fails
 * the test; nothing here is ever skipped.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { ensureTopics } from '@tonstream/bus';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';

const KAFKA_BROKERS = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',').map((s) => s.trim());
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const MiB = 1024 * 1024;

describe('kafka', () => {
  it('produces and consumes a small and a 5 MiB message', async () => {
    const kafka = new Kafka({
      clientId: `infra-test-${runId}`,
      brokers: KAFKA_BROKERS,
      connectionTimeout: 3000,
      retry: { retries: 3 },
      logLevel: logLevel.ERROR,
    });
    const topic = `infra-test-${runId}`;
    const big = randomBytes(5 * MiB);
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
    const consumer = kafka.consumer({
      groupId: `infra-test-${runId}`,
      maxBytesPerPartition: 16 * MiB,
      maxBytes: 32 * MiB,
    });
    try {
      await admin.connect();
      // The pipeline's own creation, which waits until the broker serves the new topic (kafkajs'
      // waitForLeaders throws on the "does not host this topic-partition" a loaded broker answers first).
      const created = await ensureTopics(admin, [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: String(16 * MiB) }] }]);
      expect(created).toEqual([topic]);

      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'small', value: 'hello tonstream' }] });
      await producer.send({ topic, messages: [{ key: 'big', value: big }] });

      const received: { key: string; value: Buffer; offset: string }[] = [];
      let done!: () => void;
      const both = new Promise<void>((resolve) => (done = resolve));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          received.push({ key: message.key?.toString() ?? '', value: message.value ?? Buffer.alloc(0), offset: message.offset });
          if (received.length >= 2) done();
        },
      });
      await Promise.race([
        both,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`consumed ${received.length}/2 messages in 60 s`)), 60_000)),
      ]);

      expect(received.map((m) => [m.key, m.offset])).toEqual([
        ['small', '0'],
        ['big', '1'],
      ]);
      expect(received[0].value.toString()).toBe('hello tonstream');
      expect(received[1].value.length).toBe(big.length);
      expect(received[1].value.equals(big)).toBe(true);
    } finally {
      await consumer.disconnect().catch(() => {});
      await producer.disconnect().catch(() => {});
      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
      await admin.disconnect().catch(() => {});
    }
  });
});

describe('clickhouse', () => {
  it('creates a table, inserts JSONEachRow rows and reads them back exactly', async () => {
    const client = createClient({ url: CLICKHOUSE_URL, request_timeout: 30_000 });
    const table = `infra_test_${runId}`;
    const rows = [
      { id: 1, name: 'plain', amount: '0', at: '2024-01-02 03:04:05' },
      { id: 2, name: "quote ' and \\ backslash", amount: '18446744073709551615', at: '1970-01-01 00:00:01' },
      { id: 3, name: 'unicode: Ton 💎 тон', amount: '42', at: '2038-01-19 03:14:07' },
    ];
    try {
      const ping = await client.ping();
      expect(ping.success).toBe(true);
      await client.command({
        query: `CREATE TABLE ${table} (id UInt32, name String, amount UInt64, at DateTime('UTC')) ENGINE = MergeTree ORDER BY id`,
      });
      await client.insert({ table, values: rows, format: 'JSONEachRow' });

      const result = await client.query({ query: `SELECT id, name, amount, at FROM ${table} ORDER BY id`, format: 'JSONEachRow' });
      // UInt64 comes back as a string (output_format_json_quote_64bit_integers), so it stays exact.
      expect(await result.json()).toEqual(rows);

      const count = await client.query({ query: `SELECT count() AS n FROM ${table} WHERE amount = 18446744073709551615`, format: 'JSONEachRow' });
      expect(await count.json()).toEqual([{ n: '1' }]);
    } finally {
      await client.command({ query: `DROP TABLE IF EXISTS ${table}` }).catch(() => {});
      await client.close();
    }
  });
});

describe('redis', () => {
  it('round-trips a key', async () => {
    const errors: Error[] = [];
    const redis = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: 3000,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null, // fail instead of reconnecting forever when the server is missing
    });
    redis.on('error', (err: Error) => errors.push(err));
    const key = `infra-test:${runId}`;
    try {
      await redis.connect();
      expect(await redis.set(key, 'value with spaces and ünïcode', 'EX', 60)).toBe('OK');
      expect(await redis.get(key)).toBe('value with spaces and ünïcode');
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
      expect(await redis.del(key)).toBe(1);
      expect(await redis.get(key)).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
