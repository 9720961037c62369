/**
 * Connection limits shared by several streamers through the real Redis (issue 28): counters standing
 * for two processes keep one limit between them and a release frees at once; a process that dies
 * without releasing stops counting after the slot TTL, while a live one's slots outlive it by their
 * refresh; through two streaming servers, a client over the limit on one is refused by the other with
 * a single streamer's answers (SSE 429, WebSocket error frame). Redis away (a proxy of this suite's own,
 * cut): connections are counted per process, and those opened meanwhile join the shared count once it
 * is back.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@tonstream/runtime';
import { createFanout } from '@tonstream/streaming';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConnectionCounter, createSharedConnectionCounter, type Slot } from '../../services/streamer/src/connection-count.js';
import type { ConnectionLimits } from '../../services/streamer/src/limits.js';
import { connectRedisSlots, slotsKey } from '../../services/streamer/src/redis-slots.js';
import { createStreamingServer } from '../../services/streamer/src/server.js';
import { eventually } from '../support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { sseClient, wsClient } from './streaming-clients.js';
import { testStreamerOptions } from './streamer-options.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `tonstream-test:shared-limits:${randomBytes(4).toString('hex')}:`;
const logger = createLogger({ level: 'error' });
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const counters: ConnectionCounter[] = [];
/** The Redis keys this suite's counters used (deleted by name: KEYS would block a Redis holding a large index). */
const used = new Set<string>();
const keyOf = (limitingKey: string) => {
  const key = slotsKey(prefix, '', limitingKey);
  used.add(key);
  return key;
};
const closing: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closing) await close();
  for (const c of counters) await c.close();
  if (used.size > 0) await redis.del(...used);
  await redis.quit();
});

/** A streamer process's counter: its own Redis connection, its own id. */
async function streamerCounter(o: { ttlMs?: number; redisUrl?: string } = {}): Promise<ConnectionCounter> {
  const slots = await connectRedisSlots({ redisUrl: o.redisUrl ?? REDIS_URL, keyOf, logger });
  const counter = createSharedConnectionCounter({ slots, logger, ttlMs: o.ttlMs });
  counters.push(counter);
  return counter;
}

const limits = (key: string, maxConnections: number): ConnectionLimits => ({ key, maxConnections, maxAddresses: 10 });
const taken = (slot: Slot) => {
  if (!slot.ok) throw new Error(`refused: ${slot.active} active`);
  return slot.release;
};
/** Connections the shared count holds for a limiting key (expired ones included until a take drops them). */
const held = async (key: string) => redis.zcard(keyOf(key));

describe('connections counted across streamers (Redis)', () => {
  it('the limit holds across two processes, each refused with the count of both; a release frees at once', async () => {
    const [a, b] = [await streamerCounter(), await streamerCounter()];
    const key = 'key:across';
    const a1 = taken(await a.acquire(limits(key, 3)));
    taken(await a.acquire(limits(key, 3)));
    taken(await b.acquire(limits(key, 3)));
    expect(await b.acquire(limits(key, 3))).toEqual({ ok: false, active: 3 });
    expect(await a.acquire(limits(key, 3))).toEqual({ ok: false, active: 3 });
    expect(await held(key)).toBe(3);
    a1();
    await eventually('the release in Redis', async () => ((await held(key)) === 2 ? true : undefined), 5_000, 20);
    taken(await b.acquire(limits(key, 3)));
    expect(a.mode()).toEqual({ shared: true });
  });

  it('a process that dies stops counting after the slot TTL; a live process keeps its slots past it', async () => {
    const TTL_MS = 1_500;
    const live = await streamerCounter({ ttlMs: TTL_MS });
    const dying = await streamerCounter({ ttlMs: TTL_MS });
    const key = 'ip:198.51.100.7';
    taken(await live.acquire(limits(key, 3)));
    taken(await dying.acquire(limits(key, 3)));
    taken(await dying.acquire(limits(key, 3)));
    // Gone without releasing anything: no more refreshes, as after a kill -9.
    await dying.close();
    expect(await live.acquire(limits(key, 3))).toEqual({ ok: false, active: 3 });
    // Time is the subject: two TTLs, the live process refreshing every third of one meanwhile.
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    expect(await live.acquire(limits(key, 1))).toEqual({ ok: false, active: 1 });
    taken(await live.acquire(limits(key, 3)));
    await new Promise((r) => setTimeout(r, 2 * TTL_MS));
    expect(await live.acquire(limits(key, 2))).toEqual({ ok: false, active: 2 });
  });

  it('two streaming servers: a client over the limit on one is refused by the other (SSE 429, WebSocket error frame)', async () => {
    const fanout = createFanout({ retainMcBlocks: 100, retainMaxBytes: 2 ** 30 });
    const start = async () => {
      const server = createStreamingServer(testStreamerOptions({ fanout, logger, maxConnectionsAnonymous: 1, counter: await streamerCounter() }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closing.push(() => new Promise<void>((resolve) => (server.closeStreams(), server.close(() => resolve()), server.closeAllConnections())));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const [one, two] = [await start(), await start()];
    const sub = { types: ['transactions'], addresses: [`0:${'B2'.repeat(32)}`], min_finality: 'confirmed' };
    const open = sseClient(`${one}/api/streaming/v2/sse`, sub);
    await eventually('the first client connected', async () => (open.connected() ? true : undefined), 10_000, 20);

    const refused = await fetch(`${two}/api/streaming/v2/sse`, { method: 'POST', body: JSON.stringify(sub), headers: { 'Content-Type': 'application/json' } });
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 429, body: { error: 'connection limit reached: 1 active connections' } });
    const ws = await wsClient(`${two.replace('http', 'ws')}/api/streaming/v2/ws`);
    await eventually('the WebSocket refusal', async () => (ws.closed ? true : undefined), 10_000, 20);
    expect(ws.messages).toEqual([{ error: 'connection limit reached: 1 active connections' }]);

    open.close();
    const second = await eventually(
      'the slot freed for the other server',
      async () => {
        const c = sseClient(`${two}/api/streaming/v2/sse`, sub);
        const admitted = await eventually('an answer', async () => (c.connected() ? true : c.status === 429 ? false : undefined), 10_000, 20);
        if (admitted) return c;
        c.close();
        return undefined;
      },
      10_000,
      50,
    );
    second.close();
  });

  it('Redis away: counted in each process and never refused for it; connections opened meanwhile join the shared count when it is back', async () => {
    const target = new URL(REDIS_URL);
    const proxy: TcpProxy = await startTcpProxy(target);
    closing.push(() => proxy.close());
    const proxied = new URL(REDIS_URL);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const other = await streamerCounter();
    const cut = await streamerCounter({ ttlMs: 1_500, redisUrl: proxied.toString() });
    const key = 'key:outage';
    taken(await other.acquire(limits(key, 1)));
    expect(await cut.acquire(limits(key, 1))).toEqual({ ok: false, active: 1 });

    proxy.setDown(true);
    await eventually('the counter sees Redis away', async () => (cut.mode().shared ? undefined : true), 10_000, 20);
    // Its own count: none open here, so one fits under 1; a second does not.
    taken(await cut.acquire(limits(key, 1)));
    expect(await cut.acquire(limits(key, 1))).toEqual({ ok: false, active: 1 });
    expect(await held(key)).toBe(1);

    proxy.setDown(false);
    await eventually('the connection opened meanwhile in the shared count', async () => ((await held(key)) === 2 ? true : undefined), 15_000, 50);
    expect(cut.mode()).toEqual({ shared: true });
    expect(await other.acquire(limits(key, 2))).toEqual({ ok: false, active: 2 });
  });
});
