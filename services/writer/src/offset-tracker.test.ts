import { describe, expect, it } from 'vitest';
import { createOffsetTracker } from './offset-tracker.js';

const end = (topic: string, partition: number, next: number) => ({ topic, partition, next: BigInt(next) });

describe('createOffsetTracker()', () => {
  it('commits each partition up to the end of a stored batch', () => {
    const t = createOffsetTracker();
    t.open(1, [end('tx', 0, 10), end('msg', 1, 4)]);
    expect(t.complete(1)).toEqual([
      { topic: 'tx', partition: 0, offset: '10' },
      { topic: 'msg', partition: 1, offset: '4' },
    ]);
    expect(t.openBatches).toBe(0);
  });

  it('holds back a batch that finishes before an earlier one on the same partition', () => {
    const t = createOffsetTracker();
    t.open(1, [end('tx', 0, 10)]);
    t.open(2, [end('tx', 0, 20), end('tx', 1, 5)]);
    // Batch 2 is stored first: partition 1 only has batch 2, partition 0 still waits for batch 1.
    expect(t.complete(2)).toEqual([{ topic: 'tx', partition: 1, offset: '5' }]);
    expect(t.complete(1)).toEqual([{ topic: 'tx', partition: 0, offset: '20' }]);
  });

  it('never moves a committed offset backwards, e.g. after a rebalance re-delivers messages', () => {
    const t = createOffsetTracker();
    t.open(1, [end('tx', 0, 50)]);
    expect(t.complete(1)).toEqual([{ topic: 'tx', partition: 0, offset: '50' }]);
    t.open(2, [end('tx', 0, 30)]);
    expect(t.complete(2)).toEqual([]);
    t.open(3, [end('tx', 0, 60)]);
    expect(t.complete(3)).toEqual([{ topic: 'tx', partition: 0, offset: '60' }]);
  });

  it('rejects completing a batch it never opened', () => {
    expect(() => createOffsetTracker().complete(7)).toThrow(/never opened/);
  });
});
