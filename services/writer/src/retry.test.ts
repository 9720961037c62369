import { StoreError } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { backoffMs, retryWhileRetriable } from './retry.js';

const policy = { initialMs: 100, maxMs: 1_000, factor: 2 };
const isRetriable = (err: unknown) => err instanceof StoreError && err.retriable;

describe('backoffMs()', () => {
  it('doubles from the initial wait up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, policy))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe('retryWhileRetriable()', () => {
  it('retries the same call while ClickHouse is unavailable, once per attempt, then returns its result', async () => {
    let calls = 0;
    const waits: number[] = [];
    const retries: number[] = [];
    const result = await retryWhileRetriable(
      async () => {
        if (++calls < 4) throw new StoreError('connect ECONNREFUSED', undefined, true);
        return 'stored';
      },
      { policy, isRetriable, onRetry: (_e, attempt) => retries.push(attempt), sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('stored');
    expect(retries).toEqual([1, 2, 3]);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('throws a non-retriable error at once', async () => {
    let calls = 0;
    const err = new StoreError('Code: 60. Table doesn\'t exist', 60, false);
    await expect(
      retryWhileRetriable(
        async () => {
          calls++;
          throw err;
        },
        { policy, isRetriable, sleep: async () => {} },
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it('gives up with the last error once aborted', async () => {
    const abort = new AbortController();
    const err = new StoreError('socket hang up', undefined, true);
    await expect(
      retryWhileRetriable(
        async () => {
          throw err;
        },
        { policy, isRetriable, signal: abort.signal, sleep: async () => abort.abort() },
      ),
    ).rejects.toBe(err);
  });
});
