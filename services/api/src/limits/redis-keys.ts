/**
 * Names of what the limits keep in Redis, all under one prefix (API_REDIS_PREFIX) so several
 * instances, or tests, can share a server without seeing each other's keys.
 */

/** One Redis hash: field = sha256 of an API key (hex), value = its KeyRecord as JSON. */
export function apiKeysKey(prefix: string): string {
  return `${prefix}keys`;
}

/** A sorted set of the request times admitted for a subject (`key:<sha256>` or `ip:<address>`) in the current window. */
export function windowKey(prefix: string, subject: string): string {
  return `${prefix}window:${subject}`;
}
