/** Exponential backoff between attempts at the same batch. */
export type RetryPolicy = {
  /** Wait after the first failure. */
  initialMs: number;
  /** Longest wait between attempts. */
  maxMs: number;
  factor: number;
};

/** ClickHouse restarts in well under a second; outages longer than that are waited out at 10 s steps. */
export const DEFAULT_RETRY: RetryPolicy = { initialMs: 250, maxMs: 10_000, factor: 2 };

/** Wait before attempt `attempt + 1` after `attempt` failures (attempt >= 1). */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt - 1));
}

export type RetryOptions = {
  policy?: RetryPolicy;
  /** Whether an error is worth another attempt; anything else is thrown at once. */
  isRetriable: (err: unknown) => boolean;
  /** Called once per failed attempt that will be retried, before waiting. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Aborting stops waiting: the last error is thrown. */
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

/** Runs `fn` until it succeeds or fails with a non-retriable error; never gives up on retriable ones. */
export async function retryWhileRetriable<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!options.isRetriable(err) || options.signal?.aborted) throw err;
      const delay = backoffMs(attempt, options.policy);
      options.onRetry?.(err, attempt, delay);
      await sleep(delay, options.signal);
      if (options.signal?.aborted) throw err;
    }
  }
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
