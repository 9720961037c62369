import { rethrowBugs } from '@tonstream/errors';
import type { Logger } from '@tonstream/runtime';
import { apiKeyExists, connectFailFastRedis, missingApiKeys } from '@tonstream/store';

/**
 * The API's key store, read-only, through the store's key layout and lookups (`@tonstream/store`
 * `api-keys/`; `npm run keys` creates and revokes keys): the streamer accepts exactly the keys the
 * API accepts.
 */
export const UNKNOWN_KEY_MESSAGE = 'API key does not exist';
export const REVOKED_KEY_MESSAGE = 'API key revoked';

/** A key Redis vouched for within this long is still accepted while Redis is unreachable (as the API does). */
const KEY_CACHE_TTL_MS = 10 * 60_000;

export type KeyVerdict = 'known' | 'unknown' | 'unverified';

export type KeyVerifier = {
  /** Whether the key (its sha256) is in the store; 'unverified' when Redis cannot say and no recent answer is cached. */
  check(keyHash: string): Promise<KeyVerdict>;
  /** Of these hashes, the ones the store no longer has; null when Redis cannot say. */
  missing(keyHashes: string[]): Promise<Set<string> | null>;
  close(): Promise<void>;
};

export function connectKeyVerifier(o: { redisUrl: string; prefix: string; logger: Logger; now?: () => number }): KeyVerifier {
  const now = o.now ?? Date.now;
  const { redis, close } = connectFailFastRedis(o.redisUrl, o.logger, {
    up: 'API keys read from Redis',
    down: 'Redis unreachable: keys Redis vouched for in the last 10 min are accepted, others count as anonymous',
  });
  const cache = new Map<string, { atMs: number }>();

  return {
    async check(keyHash) {
      if (redis.status === 'ready') {
        try {
          const known = await apiKeyExists(redis, o.prefix, keyHash);
          // Only keys that exist are remembered: random keys must not grow the cache.
          if (known) cache.set(keyHash, { atMs: now() });
          else cache.delete(keyHash);
          return known ? 'known' : 'unknown';
        } catch (err) {
          rethrowBugs(err);
          // fall through to the cache
        }
      }
      const c = cache.get(keyHash);
      return c && now() - c.atMs <= KEY_CACHE_TTL_MS ? 'known' : 'unverified';
    },
    async missing(keyHashes) {
      if (keyHashes.length === 0 || redis.status !== 'ready') return keyHashes.length === 0 ? new Set() : null;
      try {
        const gone = await missingApiKeys(redis, o.prefix, keyHashes);
        for (const hash of keyHashes) {
          if (gone.has(hash)) cache.delete(hash);
          else cache.set(hash, { atMs: now() });
        }
        return gone;
      } catch (err) {
        rethrowBugs(err);
        return null;
      }
    },
    close,
  };
}
