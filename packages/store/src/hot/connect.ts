import { Redis } from 'ioredis';
import { defaultHotPrefix, type HotTier } from './layout.js';

/** A command the tier does not answer in this time fails (a read falls back to ClickHouse, a write marks a break). */
const COMMAND_TIMEOUT_MS = 2_000;
/** How long `connectHotTier` waits for Redis before going on without it (reads fall back; writes mark breaks). */
const READY_WAIT_MS = 5_000;

/** The hot tier's configuration (HOT_TIER_* variables): `prefix` '' is the database's default. */
export type HotTierOptions = { prefix: string; database: string; ttlSeconds: number; txWindowSeconds: number };

/**
 * A Redis connection for the tier that fails fast: no offline queue (a command while disconnected
 * fails at once), no retries per command, reconnecting in the background. Resolves once connected, or
 * after READY_WAIT_MS without it.
 */
export async function connectHotTier(url: string, options: HotTierOptions): Promise<HotTier> {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS, retryStrategy: (n) => Math.min(n * 100, 2_000) });
  redis.on('error', () => {}); // failures surface per command; these are reconnect noise
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { redis, prefix: options.prefix || defaultHotPrefix(options.database), ttlSeconds: options.ttlSeconds, txWindowSeconds: options.txWindowSeconds };
}
