/**
 * Which shard blocks a masterchain block commits. ShardHashes lists only each shard's newest block
 * (its "top"); the blocks between the previous masterchain block's tops and the new tops are found
 * by following each block's prev refs (BlockInfo `prev_ref`: one parent, or two after a merge; after
 * a split the parent is the shard one bit shorter). ton-lite-client's `getFullBlock` compares
 * seqnos instead and misses blocks around splits and merges; this walk does not.
 */
import { createLimiter } from '@tonstream/lite-client';
import { TonstreamError } from '@tonstream/errors';

/** A block id with its hashes. Shards are 16 uppercase hex digits (tag bit included), hashes base64. */
export type FullBlockId = { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string };

export type ShortBlockId = Pick<FullBlockId, 'workchain' | 'shard' | 'seqno'>;

export class ShardWalkError extends TonstreamError {
  readonly code = 'SHARD_WALK';
}

const U64 = (1n << 64n) - 1n;

export function shardBits(shard: string): bigint {
  return BigInt(`0x${shard}`);
}

function lowerBit(x: bigint): bigint {
  return x & (-x & U64);
}

/** TON `shard_is_ancestor`: `parent` is `child` or contains it (a shorter prefix of it). */
export function shardIsAncestor(parent: bigint, child: bigint): boolean {
  const x = lowerBit(parent);
  const y = lowerBit(child);
  return x >= y && ((parent ^ child) & ((-x & U64) << 1n) & U64) === 0n;
}

/** Two shards of the same workchain overlap when one contains the other. */
export function shardsOverlap(a: ShortBlockId, b: ShortBlockId): boolean {
  if (a.workchain !== b.workchain) return false;
  const x = shardBits(a.shard);
  const y = shardBits(b.shard);
  return shardIsAncestor(x, y) || shardIsAncestor(y, x);
}

/**
 * True when `id` was committed by an earlier masterchain block whose tops were `prevTops`: some top
 * covers the same part of the workchain with a seqno at least as high (seqnos grow along prev refs,
 * also across splits and merges). Seqno 0 is a zero state, never a block.
 */
export function committedBefore(id: ShortBlockId, prevTops: readonly ShortBlockId[]): boolean {
  if (id.seqno === 0) return true;
  return prevTops.some((top) => top.seqno >= id.seqno && shardsOverlap(top, id));
}

export function blockIdKey(id: ShortBlockId): string {
  return `${id.workchain}:${id.shard}:${id.seqno}`;
}

/** Parents before children: seqnos grow along prev refs, so ascending seqno is a topological order. */
export function compareBlockIds(a: ShortBlockId, b: ShortBlockId): number {
  return a.seqno - b.seqno || a.workchain - b.workchain || (a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : 0);
}

export type WalkOptions<B> = {
  /** ShardHashes of the new masterchain block. */
  tops: readonly FullBlockId[];
  /** ShardHashes of the previous masterchain block ([] before the first one). */
  prevTops: readonly ShortBlockId[];
  /** Downloads a block and reads its prev refs. */
  load: (id: FullBlockId) => Promise<{ block: B; prevRefs: readonly FullBlockId[] }>;
  /** Blocks loaded at once. @default 8 */
  concurrency?: number;
  /** Safety stop for a walk that never reaches the previous tops (wrong tops, bad data). @default 10_000 */
  maxBlocks?: number;
};

export type WalkedBlock<B> = { id: FullBlockId; block: B };

/**
 * Every shard block committed by the new masterchain block and not by the previous one, parents
 * first (see compareBlockIds). A block reached twice must come with the same hashes.
 */
export async function walkNewShardBlocks<B>(options: WalkOptions<B>): Promise<WalkedBlock<B>[]> {
  const { tops, prevTops, load, concurrency = 8, maxBlocks = 10_000 } = options;
  const limit = createLimiter(concurrency);
  const seen = new Map<string, FullBlockId>();
  const found: WalkedBlock<B>[] = [];

  const visit = async (id: FullBlockId, from: string): Promise<void> => {
    if (committedBefore(id, prevTops)) return;
    const key = blockIdKey(id);
    const earlier = seen.get(key);
    if (earlier) {
      if (earlier.root_hash !== id.root_hash || earlier.file_hash !== id.file_hash) {
        throw new ShardWalkError(`block ${key} is referenced with two different hashes (${earlier.root_hash}, ${id.root_hash}; second from ${from})`);
      }
      return;
    }
    seen.set(key, id);
    if (seen.size > maxBlocks) throw new ShardWalkError(`walked more than ${maxBlocks} shard blocks without reaching the previous masterchain block's tops (last: ${key})`);
    const { block, prevRefs } = await limit(() => load(id));
    found.push({ id, block });
    for (const p of prevRefs) {
      if (p.workchain !== id.workchain || p.seqno >= id.seqno) throw new ShardWalkError(`block ${key} has a prev ref ${blockIdKey(p)} that does not precede it`);
    }
    await Promise.all(prevRefs.map((p) => visit(p, key)));
  };

  await Promise.all(tops.map((t) => visit(t, 'masterchain')));
  return found.sort((a, b) => compareBlockIds(a.id, b.id));
}
