import { describe, expect, it } from 'vitest';
import { createChainLag } from './chain-lag.js';

describe('createChainLag()', () => {
  it('reports blocks and seconds behind the newest consumed block, and freshness once stored', () => {
    let t = 10_000;
    const lag = createChainLag(() => t);
    expect(lag.snapshot()).toEqual({ lastWrittenMc: -1, maxSeenMc: -1, lagBlocks: 0, lagSeconds: 0 });

    lag.seen({ mcSeqno: 100, seenAtMs: 9_000 });
    lag.seen({ mcSeqno: 101, seenAtMs: 9_500 });
    lag.seen({ mcSeqno: 102, seenAtMs: 9_800 });
    // Nothing stored yet: counted from the first block seen, not from seqno 0.
    expect(lag.snapshot()).toMatchObject({ lagBlocks: 3, lagSeconds: 1 });

    t = 10_500;
    expect(lag.written([{ mcSeqno: 100, seenAtMs: 9_000 }])).toEqual([1.5]);
    expect(lag.snapshot()).toEqual({ lastWrittenMc: 100, maxSeenMc: 102, lagBlocks: 2, lagSeconds: 1 });

    lag.written([
      { mcSeqno: 102, seenAtMs: 9_800 },
      { mcSeqno: 101, seenAtMs: 9_500 },
    ]);
    expect(lag.snapshot()).toEqual({ lastWrittenMc: 102, maxSeenMc: 102, lagBlocks: 0, lagSeconds: 0 });
  });

  it('counts a block consumed twice (replay) once it is stored twice', () => {
    const lag = createChainLag(() => 2_000);
    lag.seen({ mcSeqno: 5, seenAtMs: 1_000 });
    lag.seen({ mcSeqno: 5, seenAtMs: 1_000 });
    lag.written([{ mcSeqno: 5, seenAtMs: 1_000 }]);
    expect(lag.snapshot().lagSeconds).toBe(1);
    lag.written([{ mcSeqno: 5, seenAtMs: 1_000 }]);
    expect(lag.snapshot().lagSeconds).toBe(0);
  });
});
