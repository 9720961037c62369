import { describe, expect, it } from 'vitest';
import { replayProgress } from './reindex.js';

describe('replayProgress', () => {
  const targets = [
    { partition: 0, low: 10, end: 20 },
    { partition: 1, low: 0, end: 0 },
    { partition: 2, low: 5, end: 8 },
  ];

  it('counts a partition with nothing committed from its low offset; an empty one is done at once', () => {
    expect(replayProgress(targets, new Map())).toEqual({ partitions: 3, done: 1, replayed: 0, total: 13 });
  });

  it('is done only when every partition reached its end at the start, whatever came after', () => {
    expect(replayProgress(targets, new Map([[0, 15], [2, 8]]))).toEqual({ partitions: 3, done: 2, replayed: 8, total: 13 });
    // Offsets past the end (the live fetcher kept producing) count as done, not as more than total.
    expect(replayProgress(targets, new Map([[0, 25], [2, 9]]))).toEqual({ partitions: 3, done: 3, replayed: 13, total: 13 });
  });
});
