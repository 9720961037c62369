/**
 * Names of what the rate limits keep in Redis, under the prefix (API_REDIS_PREFIX) so several
 * instances, or tests, can share a server without seeing each other's keys. The API keys' own layout
 * is the store's (`@tonstream/store` `apiKeysKey`), shared with the streamer.
 */

/** A sorted set of the request times admitted for a subject (`key:<sha256>` or `ip:<address>`) in the current window. */
export function windowKey(prefix: string, subject: string): string {
  return `${prefix}window:${subject}`;
}
