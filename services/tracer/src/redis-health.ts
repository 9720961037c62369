import type { Redis } from 'ioredis';

/** How often Redis is pinged (one PING outstanding at most). */
const REDIS_PING_EVERY_MS = 1_000;
/** An unanswered PING this old means Redis is away although the connection looks up (a stalled network path). */
const REDIS_PING_TIMEOUT_MS = 3_000;

export type RedisWatch = {
  /** Why Redis cannot take the tracer's state now, or null. */
  problem(now?: number): string | null;
  stop(): void;
};

/**
 * Watches the tracer's Redis connection. The tracer's commands wait in ioredis' offline queue while
 * Redis is away (a state save must wait, not fail into a restart loop), so without this the tracer
 * would sit silently on its save with a healthy /healthcheck. `onChange` hears every change of "up".
 */
export function watchRedis(redis: Redis, onChange: (up: boolean) => void): RedisWatch {
  let pingSince: number | null = null;
  let lastError: string | null = null;
  let pingFailure: string | null = null;
  let up: boolean | null = null;

  const problem = (now = Date.now()): string | null => {
    if (redis.status !== 'ready') return `redis ${redis.status}${lastError ? ` (${lastError})` : ''}: tracer state cannot be saved`;
    if (pingSince !== null && now - pingSince >= REDIS_PING_TIMEOUT_MS) return `redis has not answered a PING for ${Math.round((now - pingSince) / 1000)} s: tracer state cannot be saved`;
    return pingFailure === null ? null : `redis refused a PING (${pingFailure})`;
  };

  redis.on('error', (err: Error) => (lastError = err.message));
  redis.on('ready', () => (lastError = null));
  const timer = setInterval(() => {
    if (pingSince === null && redis.status === 'ready') {
      pingSince = Date.now();
      redis.ping().then(
        () => ((pingSince = null), (pingFailure = null)),
        (err: Error) => ((pingSince = null), (pingFailure = err.message)),
      );
    }
    const nowUp = problem() === null;
    if (nowUp !== up) onChange((up = nowUp));
  }, REDIS_PING_EVERY_MS);
  timer.unref();

  return { problem, stop: () => clearInterval(timer) };
}
