import type { Logger } from '@tonstream/runtime';
import { Redis } from 'ioredis';

/** A request never waits on Redis longer than this; past it the request is limited per process. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
/** Reconnection backs off to this and keeps trying for as long as the API runs. */
const REDIS_RECONNECT_MAX_MS = 2_000;

/**
 * The limits' Redis connection. Commands fail at once while it is down (no offline queue), so
 * requests fall back to per-process limits instead of queueing behind a reconnect.
 */
export type LimitsRedis = { redis: Redis; close(): Promise<void> };

export function connectLimitsRedis(url: string, logger: Logger): LimitsRedis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
  });
  // ioredis reports every failed reconnect: log each change of state once, not each attempt.
  let state: 'starting' | 'up' | 'down' = 'starting';
  redis.on('ready', () => {
    state = 'up';
    logger.info('rate limits shared through Redis', { redis: url });
  });
  const down = (err?: Error) => {
    if (state !== 'down') logger.warn('Redis unreachable: rate limits are per process until it is back', { redis: url, err });
    state = 'down';
  };
  redis.on('error', down);
  redis.on('close', () => down());
  return {
    redis,
    async close() {
      state = 'down'; // a shutdown, not an outage: nothing to warn about
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
