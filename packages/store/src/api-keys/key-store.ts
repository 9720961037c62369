import type { Redis } from 'ioredis';
import { apiKeysKey, generateApiKey, hashApiKey, type KeyRecord } from './layout.js';
import { TonstreamError } from '@tonstream/errors';

/** A stored key as `list` shows it: its record and its hash (the hash field's name). */
export type StoredKey = KeyRecord & { hash: string };

/** Largest per-key limit: the window log keeps one entry per admitted request. */
export const MAX_KEY_RPS = 10_000;
export const MAX_LABEL_LENGTH = 200;
/** Shortest hash prefix `revoke` accepts, so a typo cannot match many keys. */
export const MIN_REVOKE_PREFIX = 8;

export class KeyStoreError extends TonstreamError {
  readonly code = 'KEY_STORE';
  constructor(message: string) {
    super(message);
  }
}

export type KeyStore = {
  /** Stores a new key with its limit; the key itself is returned here only. */
  create(options: { rps: number; label: string; now?: Date }): Promise<{ key: string; record: StoredKey }>;
  /** Every key, oldest first. */
  list(): Promise<StoredKey[]>;
  /** Removes the key given in full, or the one key whose hash starts with the given hex prefix. */
  revoke(keyOrHashPrefix: string): Promise<StoredKey>;
};

/** Creating, listing and revoking keys (`npm run keys`); the services only look keys up (`lookup.ts`). */
export function createKeyStore(redis: Redis, prefix: string): KeyStore {
  const hashKey = apiKeysKey(prefix);

  const list = async (): Promise<StoredKey[]> => {
    const all = await redis.hgetall(hashKey);
    return Object.entries(all)
      .map(([hash, json]) => ({ hash, ...(JSON.parse(json) as KeyRecord) }))
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.hash.localeCompare(b.hash));
  };

  return {
    async create({ rps, label, now = new Date() }) {
      if (!Number.isInteger(rps) || rps < 1 || rps > MAX_KEY_RPS) throw new KeyStoreError(`rps must be an integer in [1, ${MAX_KEY_RPS}], got ${rps}`);
      if (label.length > MAX_LABEL_LENGTH) throw new KeyStoreError(`label is longer than ${MAX_LABEL_LENGTH} characters`);
      const key = generateApiKey();
      const record: KeyRecord = { rps, label, created_at: now.toISOString() };
      await redis.hset(hashKey, hashApiKey(key), JSON.stringify(record));
      return { key, record: { hash: hashApiKey(key), ...record } };
    },
    list,
    async revoke(keyOrHashPrefix) {
      const hash = hashApiKey(keyOrHashPrefix);
      const json = await redis.hget(hashKey, hash);
      if (json !== null) {
        await redis.hdel(hashKey, hash);
        return { hash, ...(JSON.parse(json) as KeyRecord) };
      }
      const prefixHex = keyOrHashPrefix.toLowerCase();
      if (!/^[0-9a-f]+$/.test(prefixHex) || prefixHex.length < MIN_REVOKE_PREFIX) {
        throw new KeyStoreError(`no such key, and "${keyOrHashPrefix.slice(0, 80)}" is not a hash prefix of at least ${MIN_REVOKE_PREFIX} hex characters`);
      }
      const matches = (await list()).filter((k) => k.hash.startsWith(prefixHex));
      if (matches.length === 0) throw new KeyStoreError(`no key with hash prefix ${prefixHex}`);
      if (matches.length > 1) throw new KeyStoreError(`hash prefix ${prefixHex} matches ${matches.length} keys; give more characters`);
      // HDEL answers 0 when another admin revoked it meanwhile: it is gone either way.
      await redis.hdel(hashKey, matches[0].hash);
      return matches[0];
    },
  };
}
