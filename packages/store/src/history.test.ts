import { describe, expect, it } from 'vitest';
import { checkRange, type HistoryRange, lowerFloor } from './history.js';
import type { BlockProgress } from './index-progress.js';

const MC = (n: number) => `-1:8000000000000000:${n}`;
const SHARD = (n: number) => `0:8000000000000000:${n}`;

/** Masterchain seqno n committing one shard block; `shardTx` transactions stored of the shard's 3. */
function seqno(n: number, shardTx = 3): BlockProgress[] {
  const manifest = (tx: number, mcBlocks: number) => ({ transactions: tx, messages: 0, account_states: 0, mc_blocks: mcBlocks, index_from: 0, gen_utime: 1000 + n });
  return [
    { mc_seqno: n, block: MC(n), manifest: manifest(1, 2), stored: { transactions: 1, messages: 0, account_states: 0 }, dead: 0 },
    { mc_seqno: n, block: SHARD(n), manifest: manifest(3, 0), stored: { transactions: shardTx, messages: 0, account_states: 0 }, dead: 0 },
  ];
}

const range = (from: number, to: number, more: Partial<HistoryRange> = {}): HistoryRange => ({ from_seqno: from, to_seqno: to, mc_blocks: to - from + 1, blocks: 0, transactions: 0, holes: [], traced: true, checked_ms: 0, ...more });

describe('checkRange()', () => {
  it('counts whole seqnos, their blocks and transactions, and names every seqno that is not whole', () => {
    const progress = [...seqno(10), ...seqno(11, 2), ...seqno(13), ...seqno(14)];
    expect(checkRange(10, 14, progress)).toEqual({ from_seqno: 10, to_seqno: 14, mc_blocks: 3, blocks: 6, transactions: 12, holes: [11, 12] });
  });

  it('ignores receipts outside the range', () => {
    expect(checkRange(2, 2, [...seqno(1), ...seqno(2), ...seqno(3)])).toEqual({ from_seqno: 2, to_seqno: 2, mc_blocks: 1, blocks: 2, transactions: 4, holes: [] });
  });
});

describe('lowerFloor()', () => {
  it('moves down over complete ranges that reach the floor, in any order they were checked', () => {
    expect(lowerFloor(51, [range(1, 25), range(26, 50)])).toBe(1);
    expect(lowerFloor(51, [range(26, 50)])).toBe(26);
  });

  it('stops at a range that is not contiguous, has holes or has no traces yet', () => {
    expect(lowerFloor(51, [range(1, 25), range(27, 50)])).toBe(27);
    expect(lowerFloor(51, [range(1, 25), range(27, 49)])).toBe(51);
    expect(lowerFloor(51, [range(1, 25), range(26, 50, { holes: [30] })])).toBe(51);
    expect(lowerFloor(51, [range(1, 25), range(26, 50, { traced: false })])).toBe(51);
  });

  it('takes overlapping ranges and ranges that reach above the floor', () => {
    expect(lowerFloor(51, [range(20, 60), range(1, 30)])).toBe(1);
  });
});
