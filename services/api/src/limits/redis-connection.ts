import type { Logger } from '@tonstream/runtime';
import { connectFailFastRedis } from '@tonstream/store';
import type { Redis } from 'ioredis';

/**
 * The limits' Redis connection. Commands fail at once while it is down, so requests fall back to
 * per-process limits instead of queueing behind a reconnect.
 */
export type LimitsRedis = { redis: Redis; close(): Promise<void> };

export function connectLimitsRedis(url: string, logger: Logger): LimitsRedis {
  return connectFailFastRedis(url, logger, { up: 'rate limits shared through Redis', down: 'Redis unreachable: rate limits are per process until it is back' });
}
