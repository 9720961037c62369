/**
 * The emulator process (over a localnet liteserver, the real Kafka and Redis) with a slow index: its
 * ClickHouse is a server here that answers each request after SLOW_ANSWER_MS (a 502, as a proxy would).
 * The sweep of pending traces asks the index once per pass: passes must not overlap however slow it
 * is (one request at a time, not one more every SWEEP_INTERVAL_MS). Then its consumed topic is
 * deleted under it: /healthcheck must turn non-ok within seconds, and the process exit 1 once kafkajs's
 * restart of the consumer fails too.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafka, topicNames } from '@tonstream/bus';
import { pendingKeys } from '@tonstream/store';
import { Redis } from 'ioredis';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_INTERVAL_MS } from '../../services/emulator/src/service.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS || '127.0.0.1:9092';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Several sweep intervals: overlapping sweeps would have a few requests open at once. */
const SLOW_ANSWER_MS = 4 * SWEEP_INTERVAL_MS;
const NOTICED_WITHIN_MS = 15_000;

const runId = `${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
const prefix = `it_emh_${runId}_`;
const pendingPrefix = `it_emh_${runId}:`;
const topics = topicNames(prefix);
const dir = mkdtempSync(join(tmpdir(), `tonstream-emh-${runId}-`));

let admin: Admin;
let redis: Redis;
let index: Server;
const slow = { open: 0, maxOpen: 0, answered: 0 };
let localnet: ServiceProcess;
let emulator: ServiceProcess;
let metricsPort: number;

beforeAll(async () => {
  admin = createKafka({ brokers: KAFKA_BROKERS.split(','), clientId: `it-emh-${runId}` }).admin();
  await admin.connect();
  redis = new Redis(REDIS_URL);
  index = createServer((req, res) => {
    slow.open++;
    slow.maxOpen = Math.max(slow.maxOpen, slow.open);
    req.resume();
    setTimeout(() => {
      slow.open--;
      slow.answered++;
      res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream timed out');
    }, SLOW_ANSWER_MS);
  });
  await new Promise<void>((resolve) => index.listen(0, '127.0.0.1', resolve));

  const logs = join(dir, 'logs');
  localnet = startService('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: '1000', LOCALNET_TRAFFIC_RATE: '0', LOCALNET_SEED: `emh-${runId}`, METRICS_PORT: String(await freePort()) }, logs, ['--reset']);
  await localnet.waitFor(/localnet serving/);
  metricsPort = await freePort();
  emulator = startService(
    'emulator',
    {
      KAFKA_BROKERS,
      KAFKA_TOPIC_PREFIX: prefix,
      REDIS_URL,
      PENDING_REDIS_PREFIX: pendingPrefix,
      CLICKHOUSE_URL: `http://127.0.0.1:${(index.address() as AddressInfo).port}`,
      CLICKHOUSE_DATABASE: 'tonstream_emh',
      EMULATOR_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
    },
    logs,
  );
  await emulator.waitFor(/emulator consuming/, 60_000);
});

afterAll(async () => {
  await emulator?.stop();
  await localnet?.stop();
  index?.closeAllConnections();
  index?.close();
  const keys = await redis.keys(`${pendingPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (mine.length > 0) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin?.disconnect();
});

type Health = { status: string; reasons: string[] };
const health = async (): Promise<Health> => (await (await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`)).json()) as Health;
const alive = () => {
  if (emulator.child.exitCode !== null) throw new Error(`the emulator exited (${emulator.child.exitCode}):\n${emulator.output().slice(-3000)}`);
};

describe('emulator health', () => {
  it('sweeps one at a time however slow the index answers', async () => {
    // A pending trace in Redis (expiring far ahead) is what makes a sweep ask the index.
    await redis.zadd(pendingKeys(pendingPrefix).expiry, Date.now() + 600_000, 'a'.repeat(64));
    await eventually('three slow answers', async () => (slow.answered >= 3 ? true : undefined), 60_000, 200, alive);
    expect(slow.maxOpen).toBe(1);
    expect((await health()).status).toBe('ok');
  });

  it('its consumed topic deleted under it: /healthcheck non-ok within seconds, then the process exits 1', async () => {
    await admin.deleteTopics({ topics: [topics.pendingExternals] });
    const deletedAt = Date.now();
    const noticed = await eventually('/healthcheck non-ok', async () => {
      const h = await health();
      return h.status === 'ok' ? undefined : h;
    }, NOTICED_WITHIN_MS, 200, alive);
    expect(Date.now() - deletedAt).toBeLessThan(NOTICED_WITHIN_MS);
    expect(noticed.reasons.join('; ')).toMatch(/consumer (fetches failing|crashed)/);
    const code = await emulator.exited();
    expect(code).toBe(1);
    expect(emulator.output()).toMatch(/consumer crashed again before it rejoined its group/);
  }, 180_000);
});
