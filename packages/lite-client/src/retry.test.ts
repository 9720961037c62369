import { describe, expect, it } from 'vitest';
import { AbortedError, backoffDelay, retryForever } from './retry.js';

const noSleep = async () => {};

describe('backoffDelay() and retryForever()', () => {
  it('doubles up to the cap, with jitter in the upper half', () => {
    const o = { baseMs: 100, maxMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, o, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([0, 1, 2].map((n) => backoffDelay(n, o, () => 0))).toEqual([50, 100, 200]);
  });

  it('retries until success, telling each failure', async () => {
    const seen: number[] = [];
    const out = await retryForever(
      async (n) => {
        if (n < 3) throw new Error(`fail ${n}`);
        return 'done';
      },
      { sleep: noSleep, onError: (_e, n) => seen.push(n) },
    );
    expect(out).toBe('done');
    expect(seen).toEqual([0, 1, 2]);
  });

  it('ends with AbortedError when aborted', async () => {
    const ctl = new AbortController();
    const p = retryForever(
      async () => {
        throw new Error('always');
      },
      { signal: ctl.signal, backoff: { baseMs: 10_000, maxMs: 10_000 } },
    );
    setTimeout(() => ctl.abort(), 10);
    await expect(p).rejects.toBeInstanceOf(AbortedError);
  });
});
