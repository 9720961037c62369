import { describe, expect, it } from 'vitest';
import { runsOf } from './backfill.js';
import { splitRange } from './plan.js';

describe('splitRange()', () => {
  it('cuts a range into contiguous lanes covering it once, the lower ones longer', () => {
    expect(splitRange(1, 10, 3, 'p.').map((l) => [l.from, l.to])).toEqual([[1, 4], [5, 7], [8, 10]]);
    expect(splitRange(1, 50, 2, '')).toEqual([{ from: 1, to: 25, prefix: 'history-1-25.' }, { from: 26, to: 50, prefix: 'history-26-50.' }]);
  });

  it('makes no more lanes than seqnos, and refuses an empty range', () => {
    expect(splitRange(7, 8, 4, '').map((l) => [l.from, l.to])).toEqual([[7, 7], [8, 8]]);
    expect(() => splitRange(9, 8, 2, '')).toThrow('bad range 9..8');
  });
});

describe('runsOf()', () => {
  it('groups seqnos into contiguous runs, in order', () => {
    expect(runsOf([9, 3, 5, 4])).toEqual([[3, 5], [9, 9]]);
    expect(runsOf([])).toEqual([]);
  });
});
