import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';

/** Bytes of randomness in a new key; shown as 64 hex characters, the form toncenter's keys have. */
const API_KEY_BYTES = 32;

/** A new API key: 64 lowercase hex characters. */
export function generateApiKey(): string {
  return randomBytes(API_KEY_BYTES).toString('hex');
}

/** What is stored for a key: its sha256 in lowercase hex, never the key itself. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * The API key a request carries: the `X-API-Key` header, else the `api_key` query parameter
 * (toncenter §1.2; the header wins, as for v3's other settings). Empty values count as absent; a
 * repeated one takes the last value, as v3's single-valued parameters do.
 */
export function requestApiKey(req: Pick<Request, 'headers' | 'query'>): string | undefined {
  return lastNonEmpty(req.headers['x-api-key']) ?? lastNonEmpty(req.query.api_key);
}

function lastNonEmpty(value: unknown): string | undefined {
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v !== '');
  return values.at(-1);
}
