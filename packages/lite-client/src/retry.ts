import { TonstreamError } from '@tonstream/errors';

/**
 * Exponential backoff with jitter, and an abortable sleep. Backoff is "equal jitter": half the
 * exponential delay is fixed, half random, so retries spread out without ever retrying at once.
 */

export type BackoffOptions = {
  /** Delay before the first retry (before jitter). @default 200 */
  baseMs: number;
  /** Cap on any one delay. @default 10_000 */
  maxMs: number;
};

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 10_000 };

/** Delay before retry number `attempt` (0 = first retry), in [d/2, d] with d = min(max, base·2^attempt). */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const d = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(d / 2 + random() * (d / 2));
}

export class AbortedError extends TonstreamError {
  readonly code = 'ABORTED';
}

/** Resolves after `ms`, or rejects with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls `fn` until it succeeds or `signal` aborts, sleeping `backoffDelay(attempt)` between
 * failures; `onError` sees each failure first (for logs). For work that must not be skipped,
 * like the next masterchain block.
 */
export async function retryForever<T>(
  fn: (attempt: number) => Promise<T>,
  options: { backoff?: BackoffOptions; signal?: AbortSignal; onError?: (err: unknown, attempt: number, delayMs: number) => void; sleep?: typeof sleep; random?: () => number },
): Promise<T> {
  const { backoff = DEFAULT_BACKOFF, signal, onError, random } = options;
  const wait = options.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new AbortedError('aborted');
    try {
      return await fn(attempt);
    } catch (err) {
      if (signal?.aborted || err instanceof AbortedError) throw err instanceof AbortedError ? err : new AbortedError('aborted', { cause: err });
      const delay = backoffDelay(attempt, backoff, random);
      onError?.(err, attempt, delay);
      await wait(delay, signal);
    }
  }
}
