import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeBlock } from '@tonstream/block';
import { describe, expect, it } from 'vitest';
import { blockIdKey, committedBefore, type FullBlockId, shardIsAncestor, shardsOverlap, ShardWalkError, walkNewShardBlocks } from './shard-walk.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/mainnet/blocks');

const id = (shard: string, seqno: number, tag = 'h'): FullBlockId => ({ workchain: 0, shard, seqno, root_hash: `${tag}${shard}${seqno}`, file_hash: `f${shard}${seqno}` });

/** A chain as a map from block key to its parents. */
function chain(edges: [FullBlockId, FullBlockId[]][]) {
  const parents = new Map(edges.map(([b, ps]) => [blockIdKey(b), ps]));
  const loaded: string[] = [];
  const load = async (b: FullBlockId) => {
    const ps = parents.get(blockIdKey(b));
    if (!ps) throw new Error(`unknown block ${blockIdKey(b)}`);
    loaded.push(blockIdKey(b));
    return { block: blockIdKey(b), prevRefs: ps };
  };
  return { load, loaded };
}

const keys = (r: { id: FullBlockId }[]) => r.map((b) => blockIdKey(b.id));

describe('shard ids', () => {
  it('shardIsAncestor() follows prefixes, as TON shard_is_ancestor', () => {
    expect(shardIsAncestor(0x8000000000000000n, 0x4000000000000000n)).toBe(true);
    expect(shardIsAncestor(0x8000000000000000n, 0xc000000000000000n)).toBe(true);
    expect(shardIsAncestor(0x8000000000000000n, 0x8000000000000000n)).toBe(true);
    expect(shardIsAncestor(0x4000000000000000n, 0x8000000000000000n)).toBe(false);
    expect(shardIsAncestor(0x4000000000000000n, 0xc000000000000000n)).toBe(false);
    expect(shardIsAncestor(0xc000000000000000n, 0xa000000000000000n)).toBe(true);
    expect(shardIsAncestor(0xc000000000000000n, 0x6000000000000000n)).toBe(false);
    expect(shardIsAncestor(0x0d80000000000000n, 0x0d83800000000000n)).toBe(true);
    expect(shardIsAncestor(0x0d83800000000000n, 0x0d80000000000000n)).toBe(false);
  });

  it('shardsOverlap() needs the same workchain and one shard inside the other', () => {
    const a = { workchain: 0, shard: '8000000000000000', seqno: 1 };
    expect(shardsOverlap(a, { workchain: 0, shard: 'E000000000000000', seqno: 1 })).toBe(true);
    expect(shardsOverlap({ workchain: 0, shard: 'E000000000000000', seqno: 1 }, a)).toBe(true);
    expect(shardsOverlap(a, { workchain: -1, shard: '8000000000000000', seqno: 1 })).toBe(false);
    expect(shardsOverlap({ workchain: 0, shard: '4000000000000000', seqno: 1 }, { workchain: 0, shard: 'C000000000000000', seqno: 1 })).toBe(false);
  });

  it('committedBefore() compares seqnos of overlapping tops; seqno 0 is a zero state', () => {
    const tops = [id('4000000000000000', 20), id('C000000000000000', 15)];
    expect(committedBefore(id('4000000000000000', 20), tops)).toBe(true);
    expect(committedBefore(id('4000000000000000', 21), tops)).toBe(false);
    expect(committedBefore(id('C000000000000000', 16), tops)).toBe(false);
    expect(committedBefore(id('8000000000000000', 15), tops)).toBe(true);
    expect(committedBefore(id('E000000000000000', 15), tops)).toBe(true);
    expect(committedBefore(id('E000000000000000', 16), tops)).toBe(false);
    expect(committedBefore(id('8000000000000000', 0), [])).toBe(true);
    expect(committedBefore(id('8000000000000000', 1), [])).toBe(false);
  });
});

describe('walkNewShardBlocks()', () => {
  it('collects the blocks between the previous and the new top of one shard, parents first', async () => {
    const b = (n: number) => id('8000000000000000', n);
    const c = chain([[b(13), [b(12)]], [b(12), [b(11)]], [b(11), [b(10)]]]);
    const r = await walkNewShardBlocks({ tops: [b(13)], prevTops: [b(10)], load: c.load });
    expect(keys(r)).toEqual(['0:8000000000000000:11', '0:8000000000000000:12', '0:8000000000000000:13']);
    expect(r.map((x) => x.block)).toEqual(keys(r));
    expect(c.loaded).not.toContain('0:8000000000000000:10');
  });

  it('returns nothing for a shard whose top did not move', async () => {
    const c = chain([]);
    expect(await walkNewShardBlocks({ tops: [id('8000000000000000', 10)], prevTops: [id('8000000000000000', 10)], load: c.load })).toEqual([]);
    expect(c.loaded).toEqual([]);
  });

  it('follows a split: both children reach back to the parent shard', async () => {
    const p = id('8000000000000000', 10);
    const l11 = id('4000000000000000', 11);
    const l12 = id('4000000000000000', 12);
    const r11 = id('C000000000000000', 11);
    const c = chain([[l12, [l11]], [l11, [p]], [r11, [p]]]);
    const r = await walkNewShardBlocks({ tops: [l12, r11], prevTops: [p], load: c.load });
    expect(keys(r)).toEqual(['0:4000000000000000:11', '0:C000000000000000:11', '0:4000000000000000:12']);
  });

  it('follows a split that happens before the previous top is reached, and a split committed across two masterchain blocks', async () => {
    // prev mc: 8000@10. The shard splits at 11 (children), the new mc commits only the left child's branch
    // and the right child's first block.
    const p = id('8000000000000000', 10);
    const p11 = id('8000000000000000', 11);
    const l12 = id('4000000000000000', 12);
    const r12 = id('C000000000000000', 12);
    const r13 = id('C000000000000000', 13);
    const c = chain([[l12, [p11]], [r12, [p11]], [r13, [r12]], [p11, [p]]]);
    const first = await walkNewShardBlocks({ tops: [l12, r12], prevTops: [p], load: c.load });
    expect(keys(first)).toEqual(['0:8000000000000000:11', '0:4000000000000000:12', '0:C000000000000000:12']);
    const second = await walkNewShardBlocks({ tops: [l12, r13], prevTops: [l12, r12], load: c.load });
    expect(keys(second)).toEqual(['0:C000000000000000:13']);
  });

  it('follows a merge: two parents, each back to its own previous top', async () => {
    const l20 = id('4000000000000000', 20);
    const l21 = id('4000000000000000', 21);
    const r15 = id('C000000000000000', 15);
    const r16 = id('C000000000000000', 16);
    const m22 = id('8000000000000000', 22);
    const m23 = id('8000000000000000', 23);
    const c = chain([[m23, [m22]], [m22, [l21, r16]], [l21, [l20]], [r16, [r15]]]);
    const r = await walkNewShardBlocks({ tops: [m23], prevTops: [l20, r15], load: c.load });
    expect(keys(r)).toEqual(['0:C000000000000000:16', '0:4000000000000000:21', '0:8000000000000000:22', '0:8000000000000000:23']);
  });

  it('a merge whose parents are exactly the previous tops adds only the merged block', async () => {
    const l20 = id('4000000000000000', 20);
    const r15 = id('C000000000000000', 15);
    const m21 = id('8000000000000000', 21);
    const c = chain([[m21, [l20, r15]]]);
    expect(keys(await walkNewShardBlocks({ tops: [m21], prevTops: [l20, r15], load: c.load }))).toEqual(['0:8000000000000000:21']);
  });

  it('walks to the zero state when there is no previous masterchain block', async () => {
    const b = (n: number) => id('4000000000000000', n);
    const c = chain([[b(2), [b(1)]], [b(1), [b(0)]]]);
    expect(keys(await walkNewShardBlocks({ tops: [b(2)], prevTops: [], load: c.load }))).toEqual(['0:4000000000000000:1', '0:4000000000000000:2']);
  });

  it('loads a block reached from two children once', async () => {
    // Two tops that share an ancestor above the previous top (a split after several blocks).
    const p = id('8000000000000000', 10);
    const p11 = id('8000000000000000', 11);
    const l = id('4000000000000000', 12);
    const r = id('C000000000000000', 12);
    const c = chain([[l, [p11]], [r, [p11]], [p11, [p]]]);
    await walkNewShardBlocks({ tops: [l, r], prevTops: [p], load: c.load });
    expect(c.loaded.filter((k) => k === '0:8000000000000000:11')).toHaveLength(1);
  });

  it('rejects a block referenced with two different hashes, a prev ref that does not precede, and endless walks', async () => {
    const p = id('8000000000000000', 10);
    const p11 = id('8000000000000000', 11);
    const other11 = id('8000000000000000', 11, 'other');
    const l = id('4000000000000000', 12);
    const r = id('C000000000000000', 12);
    const bad = chain([[l, [p11]], [r, [other11]], [p11, [p]]]);
    await expect(walkNewShardBlocks({ tops: [l, r], prevTops: [p], load: bad.load })).rejects.toThrow(/two different hashes/);

    const loop = chain([[id('8000000000000000', 5), [id('8000000000000000', 5)]]]);
    await expect(walkNewShardBlocks({ tops: [id('8000000000000000', 5)], prevTops: [], load: loop.load })).rejects.toThrow(ShardWalkError);

    const long = { load: async (b: FullBlockId) => ({ block: b, prevRefs: [id(b.shard, b.seqno - 1)] }) };
    await expect(walkNewShardBlocks({ tops: [id('8000000000000000', 1000)], prevTops: [], load: long.load, maxBlocks: 50 })).rejects.toThrow(/more than 50/);
  });

  it('reads a mainnet after_merge block and stops at both parents (fixture wc0_c000…_13516764)', async () => {
    const boc = readFileSync(join(FIXTURES, 'wc0_c000000000000000_13516764_after_merge.boc'));
    const rec = decodeBlock(boc).block;
    const top: FullBlockId = { workchain: 0, shard: rec.shard, seqno: rec.seqno, root_hash: rec.root_hash, file_hash: rec.file_hash };
    const load = async (b: FullBlockId) => {
      if (blockIdKey(b) !== blockIdKey(top)) throw new Error(`not in the fixture: ${blockIdKey(b)}`);
      return { block: rec, prevRefs: rec.prev_refs };
    };
    const parents = rec.prev_refs.map((p) => ({ key: blockIdKey(p), root: Buffer.from(p.root_hash, 'base64').toString('hex') }));
    expect(parents.map((p) => p.key)).toEqual(['0:A000000000000000:13516763', '0:E000000000000000:13516699']);
    expect(parents[0].root.startsWith('617f643f')).toBe(true);
    expect(parents[1].root.startsWith('032b1bf3')).toBe(true);
    const r = await walkNewShardBlocks({ tops: [top], prevTops: rec.prev_refs, load });
    expect(keys(r)).toEqual(['0:C000000000000000:13516764']);

    // One masterchain block earlier on the right: the walk asks for exactly the right parent, hashes included.
    const asked: FullBlockId[] = [];
    const load2 = async (b: FullBlockId) => {
      if (blockIdKey(b) === blockIdKey(top)) return { block: rec, prevRefs: rec.prev_refs };
      asked.push(b);
      return { block: rec, prevRefs: [{ ...b, seqno: b.seqno - 1, root_hash: 'x', file_hash: 'y' }] };
    };
    const prevTops = [rec.prev_refs[0], { ...rec.prev_refs[1], seqno: rec.prev_refs[1].seqno - 1 }];
    const r2 = await walkNewShardBlocks({ tops: [top], prevTops, load: load2 });
    expect(keys(r2)).toEqual(['0:E000000000000000:13516699', '0:C000000000000000:13516764']);
    expect(asked).toEqual([rec.prev_refs[1]]);
  });

  it('reads the 16-bit-prefix after_merge block (fixture wc0_0d838…_4168601): parents are its two children', async () => {
    const rec = decodeBlock(readFileSync(join(FIXTURES, 'wc0_0d83800000000000_4168601_after_merge_empty.boc'))).block;
    expect(rec.after_merge).toBe(true);
    expect(rec.prev_refs.map((p) => p.shard)).toEqual(['0D83400000000000', '0D83C00000000000']);
    for (const p of rec.prev_refs) expect(shardIsAncestor(BigInt(`0x${rec.shard}`), BigInt(`0x${p.shard}`))).toBe(true);
    expect(committedBefore(rec, rec.prev_refs)).toBe(false);
    for (const p of rec.prev_refs) expect(committedBefore(p, rec.prev_refs)).toBe(true);
  });
});
