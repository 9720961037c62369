import { randomBytes } from 'node:crypto';
import { apiKeysKey } from '@tonstream/store';
import type { Redis } from 'ioredis';
import { windowKey } from './redis-keys.js';

/**
 * The shared limit: one Lua script per request looks the key up and admits or refuses the request
 * atomically, so every API process talking to the same Redis enforces one limit.
 *
 * Window: a sliding-window log (a sorted set of admitted request times, microseconds from Redis's
 * own clock). It is exact: never more than `limit` requests in any window, wherever it starts, so
 * "the second request within a second is refused" holds at any instant; a fixed window lets 2x
 * through across a boundary and a token bucket lets a full bucket through right after a refill.
 * Refused requests are not logged, so a client that keeps retrying is admitted as soon as its
 * oldest admitted request leaves the window. Cost: one sorted-set entry per admitted request per
 * window (at most the limit), expired with the window. Times come from Redis (TIME), so processes
 * with skewed clocks still agree.
 */
const SCRIPT = `
local limit = tonumber(ARGV[2])
if ARGV[1] ~= '' then
  local record = redis.call('HGET', KEYS[1], ARGV[1])
  if not record then return {-1, 0, 0} end
  limit = tonumber(cjson.decode(record).rps)
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local window = tonumber(ARGV[3]) * 1000
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[2])
if used < limit then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  return {1, limit, limit - used - 1}
end
local freeing = redis.call('ZRANGE', KEYS[2], used - limit, used - limit, 'WITHSCORES')
return {0, limit, math.ceil((tonumber(freeing[2]) + window - now) / 1000)}
`;

export type LimitDecision =
  | { kind: 'allowed'; limit: number; remaining: number }
  | { kind: 'limited'; limit: number; retryAfterMs: number }
  | { kind: 'unknown_key' };

export type LimitRequest = { keyHash?: string; clientIp: string; anonymousLimit: number };

export type RedisLimiter = { take(request: LimitRequest): Promise<LimitDecision> };

type WithScript = { tonstreamRateLimit(keysKey: string, windowKey: string, keyHash: string, anonymousLimit: number, windowMs: number, member: string): Promise<[number, number, number]> };

export function createRedisLimiter(redis: Redis, prefix: string, windowMs: number): RedisLimiter {
  // ioredis sends EVALSHA and falls back to EVAL when the server does not know the script yet.
  redis.defineCommand('tonstreamRateLimit', { numberOfKeys: 2, lua: SCRIPT });
  const scripted = redis as unknown as WithScript;
  // Members must be unique across processes: two requests can get the same microsecond.
  const processTag = randomBytes(6).toString('hex');
  let sequence = 0;

  return {
    async take({ keyHash, clientIp, anonymousLimit }) {
      const subject = keyHash === undefined ? `ip:${clientIp}` : `key:${keyHash}`;
      const member = `${processTag}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`;
      const [code, limit, value] = await scripted.tonstreamRateLimit(apiKeysKey(prefix), windowKey(prefix, subject), keyHash ?? '', anonymousLimit, windowMs, member);
      if (code === -1) return { kind: 'unknown_key' };
      if (code === 1) return { kind: 'allowed', limit, remaining: value };
      return { kind: 'limited', limit, retryAfterMs: value };
    },
  };
}
