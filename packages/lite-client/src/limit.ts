/** Runs at most `n` async tasks at once; the rest wait in FIFO order. `Infinity`: no bound. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(n: number): Limiter {
  if (n !== Infinity && (!Number.isInteger(n) || n < 1)) throw new RangeError(`concurrency must be a positive integer or Infinity, got ${n}`);
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
