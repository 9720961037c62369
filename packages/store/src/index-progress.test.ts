import { describe, expect, it } from 'vitest';
import { advanceWatermark, type BlockProgress } from './index-progress.js';

const MC = (n: number) => `-1:8000000000000000:${n}`;
const SHARD = (s: number) => `0:8000000000000000:${s}`;

/** A block of masterchain seqno `n`, stored completely unless `stored` says otherwise. */
function block(n: number, key: string, opts: { mcBlocks?: number; meta?: boolean; expect?: number; stored?: number; dead?: number } = {}): BlockProgress {
  const expect = opts.expect ?? 3;
  return {
    mc_seqno: n,
    block: key,
    manifest: opts.meta === false ? undefined : { transactions: expect, messages: expect * 2, account_states: expect, mc_blocks: opts.mcBlocks ?? 0, index_from: 0, gen_utime: 1000 + n },
    stored: { transactions: opts.stored ?? expect, messages: (opts.stored ?? expect) * 2, account_states: opts.stored ?? expect },
    dead: opts.dead ?? 0,
  };
}

/** Masterchain seqno n with one shard block, both complete. */
const complete = (n: number) => [block(n, MC(n), { mcBlocks: 2 }), block(n, SHARD(n))];

describe('advanceWatermark()', () => {
  it('moves over every complete seqno in order, and only those', () => {
    const blocks = [...complete(5), ...complete(6), ...complete(8)];
    expect(advanceWatermark({ mc_seqno: 4, gen_utime: 1004 }, 0, blocks)).toEqual({ watermark: { mc_seqno: 6, gen_utime: 1006 }, waiting: 'masterchain block 7: nothing stored yet', stuck: false });
  });

  it('starts a new index at its first seqno, not at the lowest one that happens to be stored', () => {
    expect(advanceWatermark(null, 10, complete(11))).toEqual({ watermark: null, waiting: 'masterchain block 10: nothing stored yet', stuck: false });
    expect(advanceWatermark(null, 10, [...complete(10), ...complete(11)]).watermark).toEqual({ mc_seqno: 11, gen_utime: 1011 });
  });

  it('waits for every block the masterchain block commits, and every record of each', () => {
    expect(advanceWatermark(null, 1, [block(1, MC(1), { mcBlocks: 3 }), block(1, SHARD(1))]).waiting).toBe('masterchain block 1: 2 of 3 block metas stored');
    expect(advanceWatermark(null, 1, [block(1, MC(1), { mcBlocks: 2 }), block(1, SHARD(1), { stored: 2 })]).waiting).toBe(`masterchain block 1: ${SHARD(1)} has 2 of 3 transactions stored`);
    expect(advanceWatermark(null, 1, [block(1, SHARD(1)), block(1, MC(1), { meta: false, mcBlocks: 2 })]).waiting).toBe('masterchain block 1: its meta is not stored yet');
    // Records stored before their block's meta count once the meta arrives.
    expect(advanceWatermark(null, 1, [block(1, MC(1), { mcBlocks: 2 }), block(1, SHARD(1), { meta: false })]).waiting).toBe('masterchain block 1: 1 of 2 block metas stored');
  });

  it('is stuck when missing records were dead-lettered, but not when the block is complete anyway', () => {
    const short = advanceWatermark(null, 1, [block(1, MC(1), { mcBlocks: 2 }), block(1, SHARD(1), { stored: 2, dead: 1 })]);
    expect(short).toEqual({ watermark: null, waiting: `masterchain block 1: ${SHARD(1)} has 2 of 3 transactions stored (1 of its records are in the dead-letter topic)`, stuck: true });
    expect(advanceWatermark(null, 1, [block(1, MC(1), { mcBlocks: 2 }), block(1, SHARD(1), { dead: 4 })]).watermark?.mc_seqno).toBe(1);
  });

  it('refuses to guess when a masterchain manifest does not say how many blocks it commits', () => {
    expect(advanceWatermark(null, 1, [block(1, MC(1))])).toMatchObject({ watermark: null, stuck: true });
  });

  it('says nothing is waiting when nothing above the watermark was seen', () => {
    expect(advanceWatermark({ mc_seqno: 3, gen_utime: 1 }, 0, [])).toEqual({ watermark: { mc_seqno: 3, gen_utime: 1 }, waiting: null, stuck: false });
  });
});
