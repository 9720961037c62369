import { LocalnetError } from './errors.js';
import type { BlockIdExt, BlockRef } from './types.js';

export const MASTERCHAIN = -1;
export const BASECHAIN = 0;
/** The shard id of a whole workchain (empty prefix, tag bit only). */
export const ROOT_SHARD = 1n << 63n;
/** Blocks start at a multiple of this lt, as validators align them. */
export const LT_ALIGN = 1_000_000n;

/** The basechain shard ids for `count` shards (a power of two up to 256), in prefix order. */
export function basechainShards(count: number): bigint[] {
  const bits = Math.log2(count);
  if (!Number.isInteger(bits) || bits < 0 || bits > 8) throw new LocalnetError('bad_request', `shards must be a power of two from 1 to 256, not ${count}`);
  const tag = 1n << BigInt(63 - bits);
  return Array.from({ length: count }, (_, i) => (BigInt(i) << BigInt(64 - bits)) | tag);
}

/** The shard of `shards` whose prefix the account id (hex) starts with; shards must tile the workchain. */
export function shardOfAccount(shards: bigint[], addressHash: string): bigint {
  if (shards.length === 1) return shards[0];
  const top = BigInt(`0x${addressHash.slice(0, 16)}`);
  for (const s of shards) {
    const low = s & -s;
    const mask = ((1n << 64n) - 1n) ^ ((low << 1n) - 1n);
    if ((top & mask) === (s & mask)) return s;
  }
  throw new LocalnetError('failed', `no shard holds account ${addressHash}`);
}

/** The first multiple of LT_ALIGN strictly above `lt`. */
export function nextAlignedLt(lt: bigint): bigint {
  return (lt / LT_ALIGN + 1n) * LT_ALIGN;
}

export function shardHex(shard: bigint): string {
  return shard.toString(16).padStart(16, '0');
}

/** `wc:shard:seqno`, the history's key. */
export function blockKey(ref: { workchain: number; shard: bigint; seqno: number }): string {
  return `${ref.workchain}:${shardHex(ref.shard)}:${ref.seqno}`;
}

export function sameBlock(a: BlockIdExt, b: BlockRef): boolean {
  return a.workchain === b.workchain && a.shard === b.shard && a.seqno === b.seqno && (b.rootHash === undefined || a.rootHash === b.rootHash.toLowerCase());
}
