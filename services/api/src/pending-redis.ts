import { pendingKeys } from '@tonstream/store';
import { Redis } from 'ioredis';
import type { PendingReader } from './v3/pending/pending.js';

/** A pending read waits at most this long; past it the endpoint answers 503. */
const PENDING_COMMAND_TIMEOUT_MS = 1_000;

/**
 * The pending endpoints' Redis connection: commands fail at once while it is down (no offline queue),
 * so those endpoints answer 503 quickly and everything else is unaffected; it reconnects by itself.
 */
export function connectPendingRedis(url: string, prefix: string): PendingReader {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: PENDING_COMMAND_TIMEOUT_MS, retryStrategy: (n) => Math.min(n * 100, 2_000) });
  // Failures surface per request as 503; the connection's own errors are only reconnect noise.
  redis.on('error', () => {});
  return { redis, keys: pendingKeys(prefix) };
}
