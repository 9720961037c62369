import { describe, expect, it } from 'vitest';
import { reusedFor } from './reuse.js';

/** A computation the test settles by hand. */
function pending() {
  let settle!: { resolve: (v: number) => void; reject: (e: Error) => void };
  const promise = new Promise<number>((resolve, reject) => (settle = { resolve, reject }));
  return { promise, ...settle };
}

describe('reusedFor()', () => {
  it('shares one computation among calls while it runs and for the reuse time after it answered', async () => {
    let t = 0;
    const runs: ReturnType<typeof pending>[] = [];
    const get = reusedFor(3000, () => (runs.push(pending()), runs[runs.length - 1].promise), () => t);
    const first = [get(), get(), get()];
    expect(runs).toHaveLength(1);
    t = 10_000; // still in flight: however long it takes, no second one starts
    expect(get()).toBe(first[0]);
    runs[0].resolve(1);
    expect(await Promise.all(first)).toEqual([1, 1, 1]);
    t = 12_999;
    expect(await get()).toBe(1);
    expect(runs).toHaveLength(1);
    t = 13_000;
    const next = get();
    expect(runs).toHaveLength(2);
    runs[1].resolve(2);
    expect(await next).toBe(2);
  });

  it('does not keep a failure: the call after it computes again', async () => {
    const runs: ReturnType<typeof pending>[] = [];
    const get = reusedFor(3000, () => (runs.push(pending()), runs[runs.length - 1].promise), () => 0);
    const failed = get();
    runs[0].reject(new Error('ClickHouse down'));
    await expect(failed).rejects.toThrow('ClickHouse down');
    const again = get();
    expect(runs).toHaveLength(2);
    runs[1].resolve(3);
    expect(await again).toBe(3);
  });
});
