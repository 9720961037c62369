import type { Logger } from '@tonstream/runtime';
import { connectFailFastRedis } from '@tonstream/store';
import type { Redis } from 'ioredis';
import type { SharedSlots } from './connection-count.js';

/**
 * The shared connection count in Redis: per limiting key, a sorted set of connection ids
 * (`<process>:<n>`) scored by when they expire, in ms of Redis's own clock (TIME), so streamers with
 * skewed clocks agree. A take is one script: drop the expired, refuse at the limit, else add.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local open = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[2])
if limit >= 0 and open >= limit then return {0, open} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, open + 1}
`;

/** ARGV: the TTL, then the ids of one process's open slots of the key. */
const REFRESH = `
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;


type Scripted = {
  tonstreamTakeSlot(key: string, id: string, limit: number, ttlMs: number): Promise<[number, number]>;
  tonstreamRefreshSlots(key: string, ttlMs: number, ...ids: string[]): Promise<number>;
};

/**
 * The count's key of a limiting key: under the API's prefix (as its rate-limit windows), then the topic
 * prefix, which sets apart deployments (and test runs) sharing a Redis and a key store, as leases do.
 */
export function slotsKey(redisPrefix: string, topicPrefix: string, limitingKey: string): string {
  return `${redisPrefix}connections:${topicPrefix}${limitingKey}`;
}

export function redisSlots(redis: Redis, keyOf: (limitingKey: string) => string): SharedSlots {
  // ioredis sends EVALSHA and falls back to EVAL when the server does not know the script yet.
  redis.defineCommand('tonstreamTakeSlot', { numberOfKeys: 1, lua: TAKE });
  redis.defineCommand('tonstreamRefreshSlots', { numberOfKeys: 1, lua: REFRESH });
  const scripted = redis as unknown as Scripted;
  return {
    ready: () => redis.status === 'ready',
    async take(key, id, limit, ttlMs) {
      const [ok, active] = await scripted.tonstreamTakeSlot(keyOf(key), id, limit, ttlMs);
      return { ok: ok === 1, active };
    },
    async refresh(open, freed, ttlMs) {
      if (open.size === 0 && freed.size === 0) return void (await redis.ping());
      const pipeline = redis.pipeline();
      const queued = pipeline as unknown as Scripted;
      for (const [key, ids] of open) void queued.tonstreamRefreshSlots(keyOf(key), ttlMs, ...ids);
      for (const [key, ids] of freed) pipeline.zrem(keyOf(key), ...ids);
      const results = (await pipeline.exec()) ?? [];
      const failure = results.find(([err]) => err !== null)?.[0];
      if (failure) throw failure;
    },
    async free(key, id) {
      await redis.zrem(keyOf(key), id);
    },
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

/**
 * A Redis connection for the count that fails fast (no offline queue, no retries), reconnecting in the
 * background; resolves once connected or after `readyWaitMs` without it (connections are then counted
 * per process until it is up).
 */
export async function connectRedisSlots(o: { redisUrl: string; keyOf: (limitingKey: string) => string; logger: Logger; readyWaitMs?: number }): Promise<SharedSlots> {
  const { redis } = connectFailFastRedis(o.redisUrl, o.logger, { up: 'connection limits shared through Redis', down: 'Redis unreachable: connection limits are counted per process until it is back' });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, o.readyWaitMs ?? 2_000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redisSlots(redis, o.keyOf);
}
