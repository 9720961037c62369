import { createHash, randomBytes } from 'node:crypto';

/**
 * The Redis layout of API keys, shared by the API (rate limits, `npm run keys`) and the streamer
 * (connection limits), under the API's prefix (API_REDIS_PREFIX, default `tonstream:api:`):
 *
 * | key | type | content |
 * |---|---|---|
 * | `keys` | hash | field: sha256 of a key (lowercase hex); value: its KeyRecord as JSON |
 *
 * Only hashes are stored, never the keys. The API's rate-limit script reads `rps` from the record.
 */
export function apiKeysKey(prefix: string): string {
  return `${prefix}keys`;
}

/** What Redis holds per key. */
export type KeyRecord = { rps: number; label: string; created_at: string };

/** Bytes of randomness in a new key; shown as 64 hex characters, the form toncenter's keys have. */
const API_KEY_BYTES = 32;

/** A new API key: 64 lowercase hex characters. */
export function generateApiKey(): string {
  return randomBytes(API_KEY_BYTES).toString('hex');
}

/** A key's field in the hash: its sha256 in lowercase hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
