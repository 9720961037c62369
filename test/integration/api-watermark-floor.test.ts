/**
 * The API's watermark never steps back across API processes (issue 28): two index states stand for two
 * API processes of cluster mode, each reading its own ClickHouse node, here two databases of the real
 * ClickHouse whose watermark tables differ as a lagging replica's would (one's index watermark trails,
 * its traces watermark leads), sharing the floor in the real Redis. Each serves the highest of each
 * watermark either has served, and so does the app's `X-Index-Mc-Seqno`. Redis away (a proxy of this
 * suite's own, cut): no error, and a process still never serves less than it served.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, saveTracesWatermark, saveWatermark, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { createIndexState } from '../../services/api/src/index-state.js';
import { connectWatermarkFloor, FLOOR_TTL_MS, watermarkFloorKey } from '../../services/api/src/watermark-floor.js';
import { dropDatabase } from '../support/clickhouse.js';
import { eventually } from '../support/processes.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
const databases = { ahead: `tonstream_floor_ahead_${run}`, behind: `tonstream_floor_behind_${run}` };
const key = watermarkFloorKey(`tonstream-test:floor:${run}:`, 'test_cluster', 'tonstream');
const logger = createLogger({ level: 'error' });
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const closing: (() => Promise<unknown>)[] = [];
let ahead: Store;
let behind: Store;

const floor = (redisUrl = REDIS_URL) => {
  const f = connectWatermarkFloor({ redisUrl, key, logger });
  closing.push(() => f.close());
  return f;
};
const READY_MS = 10_000;

beforeAll(async () => {
  ahead = createStore({ url: CLICKHOUSE_URL, database: databases.ahead });
  behind = createStore({ url: CLICKHOUSE_URL, database: databases.behind });
  await Promise.all([migrate(ahead), migrate(behind)]);
  await saveWatermark(ahead, { mc_seqno: 100, gen_utime: 1_700_000_100 });
  await saveTracesWatermark(ahead, { mc_seqno: 60 });
  await saveWatermark(behind, { mc_seqno: 97, gen_utime: 1_700_000_097 });
  await saveTracesWatermark(behind, { mc_seqno: 62 });
}, 120_000);

afterAll(async () => {
  for (const close of closing) await close();
  await redis.del(key);
  await redis.quit();
  for (const [store, database] of [[ahead, databases.ahead], [behind, databases.behind]] as const) {
    await store?.close();
    await dropDatabase(CLICKHOUSE_URL, database);
  }
}, 180_000);

describe('the watermark across API processes', () => {
  it('a process reading a trailing watermark table serves the highest any process served, index and traces each', async () => {
    let t = 0;
    const now = () => t;
    const one = createIndexState(ahead, { floor: floor(), now });
    const two = createIndexState(behind, { floor: floor(), now });
    // Each floor connects by itself; until it is up a read leaves it out, as while Redis is away.
    const served = async (state: typeof one) => {
      t += 1_000; // past the 250 ms reuse of a read
      return [await state.watermark(), await state.traces()];
    };
    await eventually('the first process\'s watermark in the floor', async () => ((await served(one)) && (await redis.hget(key, 'index_mc_seqno')) === '100' ? true : undefined), READY_MS, 50);
    const second = await eventually('the second process at the floor', async () => {
      const w = await served(two);
      return w[0]?.mc_seqno === 100 ? w : undefined;
    }, READY_MS, 50);
    expect(second).toEqual([{ mc_seqno: 100, gen_utime: 1_700_000_100 }, { mc_seqno: 62 }]);
    expect(await served(one)).toEqual([{ mc_seqno: 100, gen_utime: 1_700_000_100 }, { mc_seqno: 62 }]);
    expect(await redis.hgetall(key)).toEqual({ index_mc_seqno: '100', index_gen_utime: '1700000100', traces_mc_seqno: '62' });
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(FLOOR_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(FLOOR_TTL_MS);
  });

  it('the app of the trailing process answers with the shared watermark (X-Index-Mc-Seqno)', async () => {
    const app = createApp({ store: behind, registry: createRegistry('api'), logger, watermarkFloor: floor(), checkResponses: 'reject' });
    const server = createApiServer(app).listen(0, '127.0.0.1');
    closing.push(() => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())));
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const seqno = await eventually(
      'the floor in the answer',
      async () => {
        const res = await fetch(`${base}/api/v3/transactions?limit=1`);
        await res.arrayBuffer();
        return res.status === 200 && res.headers.get('x-index-mc-seqno') === '100' ? '100' : undefined;
      },
      READY_MS,
      300,
    );
    expect(seqno).toBe('100');
  });

  it('Redis away: no error, and a process still never serves less than it served', async () => {
    const proxy = await startTcpProxy(new URL(REDIS_URL));
    closing.push(() => proxy.close());
    const proxied = new URL(REDIS_URL);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    let t = 0;
    const three = createIndexState(behind, { floor: floor(proxied.toString()), now: () => (t += 1_000) });
    await eventually('the floor read through the proxy', async () => ((await three.watermark())?.mc_seqno === 100 ? true : undefined), READY_MS, 100);
    proxy.setDown(true);
    for (let i = 0; i < 3; i++) expect([await three.watermark(), await three.traces()]).toEqual([{ mc_seqno: 100, gen_utime: 1_700_000_100 }, { mc_seqno: 62 }]);
    // A process that never reached the floor serves its own node's watermark: Redis away is never an error.
    const alone = createIndexState(behind, { floor: floor(proxied.toString()) });
    expect(await alone.watermark()).toEqual({ mc_seqno: 97, gen_utime: 1_700_000_097 });
  });
});
