import { Redis } from 'ioredis';

/** A request never waits on Redis longer than this; past it the caller falls back to what it can do alone. */
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1_000;
/** Reconnection backs off to this and keeps trying for as long as the process runs. */
const RECONNECT_MAX_MS = 2_000;

type StateLogger = { info(msg: string, fields?: object): void; warn(msg: string, fields?: object): void };

/**
 * A Redis connection for work that has a fallback (shared limits, shared floors, key checks): commands
 * fail at once while it is down (no offline queue, no retries) instead of queueing behind a reconnect,
 * which goes on in the background. ioredis reports every failed reconnect: `up` and `down` are logged
 * once per change of state.
 */
export function connectFailFastRedis(url: string, logger: StateLogger, said: { up: string; down: string }): { redis: Redis; close(): Promise<void> } {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, RECONNECT_MAX_MS),
  });
  let state: 'starting' | 'up' | 'down' | 'closed' = 'starting';
  redis.on('ready', () => {
    if (state !== 'up') logger.info(said.up, { redis: url });
    state = 'up';
  });
  const down = (err?: Error) => {
    if (state !== 'down' && state !== 'closed') logger.warn(said.down, { redis: url, err });
    if (state !== 'closed') state = 'down';
  };
  redis.on('error', down);
  redis.on('close', () => down());
  return {
    redis,
    async close() {
      state = 'closed'; // a shutdown, not an outage: nothing to warn about
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
