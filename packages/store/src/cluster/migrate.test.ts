import { describe, expect, it } from 'vitest';
import { eachAtMost } from './migrate.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('eachAtMost', () => {
  it('runs every item, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await eachAtMost(3, [...Array(20).keys()], async (i) => {
      most = Math.max(most, ++running);
      await tick();
      running--;
      done.push(i);
    });
    expect(done.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(most).toBe(3);
  });

  it('begins no item after a failure, and rejects with it once those in flight have ended', async () => {
    const begun: number[] = [];
    const ended: number[] = [];
    const run = eachAtMost(2, [0, 1, 2, 3, 4, 5], async (i) => {
      begun.push(i);
      if (i === 1) throw new Error('item 1 failed');
      await tick();
      ended.push(i);
    });
    await expect(run).rejects.toThrow('item 1 failed');
    expect(begun).toEqual([0, 1]);
    expect(ended).toEqual([0]);
  });

  it('does nothing for no items', async () => {
    await expect(eachAtMost(8, [], async () => expect.unreachable())).resolves.toBeUndefined();
  });
});
