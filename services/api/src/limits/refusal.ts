/**
 * Refusals as toncenter's gateway words them (docs/toncenter-v2.md and docs/toncenter-v3.md §1.2): v2 in its
 * envelope, v3 as every other v3 error, `{"error": …}`.
 */

export const RATE_LIMIT_MESSAGE = 'Ratelimit exceeded';
export const UNKNOWN_KEY_MESSAGE = 'API key does not exist';

export type Refusal = { status: 401 | 429; body: Record<string, unknown>; retryAfterSeconds?: number };

/** `api` is the mount path the request came through: `/api/v2` or `/api/v3`. */
export function refusalBody(api: string, status: 401 | 429, message: string): Record<string, unknown> {
  return api === '/api/v2' ? { ok: false, error: message, code: status } : { error: message };
}

/** Retry-After is whole seconds (RFC 9110 delay-seconds); round up so a client that waits is admitted. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/**
 * Paths under /api/v2 and /api/v3 that are never limited: health, and the docs page with its assets
 * and the OpenAPI document (every file name has a dot; no method or endpoint name does).
 */
export function isUnlimitedPath(path: string): boolean {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last === 'healthcheck' || last.includes('.');
}
