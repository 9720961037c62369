/**
 * The in-process twin of the Redis limiter (redis-limiter.ts): a sliding-window log per subject,
 * used when Redis is unreachable. Same rule: at most `limit` admitted requests in any window.
 */

/** How often idle subjects are dropped, so the map does not grow with every client ever seen. */
const SWEEP_INTERVAL_MS = 10_000;

export type WindowDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

export type SlidingWindow = {
  /** Admits one request of `subject` at `nowMs` if fewer than `limit` were admitted in the window before it. */
  take(subject: string, limit: number, nowMs: number): WindowDecision;
  /** Subjects currently tracked (for tests and memory checks). */
  size(): number;
};

export function createSlidingWindow(windowMs: number): SlidingWindow {
  const admitted = new Map<string, number[]>();
  let lastSweepMs = 0;

  const sweep = (nowMs: number) => {
    for (const [subject, times] of admitted) {
      if (times.length === 0 || times[times.length - 1] <= nowMs - windowMs) admitted.delete(subject);
    }
    lastSweepMs = nowMs;
  };

  return {
    take(subject, limit, nowMs) {
      if (nowMs - lastSweepMs >= SWEEP_INTERVAL_MS) sweep(nowMs);
      const times = admitted.get(subject) ?? [];
      // Same boundary as the Lua script: a request exactly one window old no longer counts.
      while (times.length > 0 && times[0] <= nowMs - windowMs) times.shift();
      if (times.length < limit) {
        times.push(nowMs);
        admitted.set(subject, times);
        return { allowed: true, remaining: limit - times.length };
      }
      admitted.set(subject, times);
      return { allowed: false, retryAfterMs: times[times.length - limit] + windowMs - nowMs };
    },
    size: () => admitted.size,
  };
}
