import type { Redis } from 'ioredis';
import { apiKeysKey } from './layout.js';

/** Whether the key with this hash is in the store (created and not revoked). */
export async function apiKeyExists(redis: Redis, prefix: string, keyHash: string): Promise<boolean> {
  return (await redis.hexists(apiKeysKey(prefix), keyHash)) === 1;
}

/** Of these key hashes, the ones the store does not hold (never created or revoked since), in one round trip. */
export async function missingApiKeys(redis: Redis, prefix: string, keyHashes: readonly string[]): Promise<Set<string>> {
  if (keyHashes.length === 0) return new Set();
  const records = await redis.hmget(apiKeysKey(prefix), ...keyHashes);
  return new Set(keyHashes.filter((_, i) => records[i] === null));
}
