import { type BlockInfo, type ExtBlkRef, loadBlockInfo, MERKLE_PROOF, parseBoc, shardChild, shardParent, Slice } from '@tonstream/block';
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { ChainError } from './chain-error.js';
import { blockIdExt } from './block-ids.js';

/** What a header proof (a Merkle proof of the Block with its BlockInfo kept) says. */
export type BlockHeader = { globalId: number; info: BlockInfo };

/** Reads `block#11ef55aa global_id:int32 info:^BlockInfo …` out of a liteserver header proof. */
export function readHeaderProof(proof: Uint8Array): BlockHeader {
  try {
    const cells = parseBoc(proof);
    const root = cells.roots[0];
    const block = cells.special[root] === MERKLE_PROOF ? cells.refs[root * 4] : root;
    const s = new Slice(cells, block, 'Block');
    if (s.loadUint(32) !== 0x11ef55aa) s.fail('not a Block');
    const globalId = s.loadInt(32);
    return { globalId, info: loadBlockInfo(s.loadRefSlice('Block.info')) };
  } catch (err) {
    throw new ChainError(502, `liteserver sent an unreadable block header proof: ${(err as Error).message}`, { cause: err });
  }
}

/** The parents' full ids: the same shard, its parent after a split, its two children after a merge. */
export function prevBlockIds(id: tonNode_blockIdExt, info: BlockInfo): tonNode_blockIdExt[] {
  const shard = BigInt.asUintN(64, BigInt(id.shard));
  const shards = info.afterMerge ? [shardChild(shard, false), shardChild(shard, true)] : [info.afterSplit ? shardParent(shard) : shard];
  return info.prevRefs.map((ref: ExtBlkRef, i) => ({
    kind: 'tonNode.blockIdExt',
    workchain: id.workchain,
    shard: BigInt.asIntN(64, shards[i]).toString(),
    seqno: ref.seqno,
    rootHash: Buffer.from(ref.rootHash, 'hex'),
    fileHash: Buffer.from(ref.fileHash, 'hex'),
  }));
}

/** `blocks.header` (docs/toncenter-v2.md §2.2). */
export function blocksHeader(id: tonNode_blockIdExt, h: BlockHeader) {
  const i = h.info;
  return {
    '@type': 'blocks.header',
    id: blockIdExt(id),
    global_id: h.globalId,
    version: i.version,
    flags: i.flags,
    after_merge: i.afterMerge,
    after_split: i.afterSplit,
    before_split: i.beforeSplit,
    want_merge: i.wantMerge,
    want_split: i.wantSplit,
    validator_list_hash_short: i.genValidatorListHashShort | 0,
    catchain_seqno: i.genCatchainSeqno,
    min_ref_mc_seqno: i.minRefMcSeqno,
    is_key_block: i.keyBlock,
    prev_key_block_seqno: i.prevKeyBlockSeqno,
    start_lt: i.startLt.toString(),
    end_lt: i.endLt.toString(),
    gen_utime: i.genUtime,
    vert_seqno: i.vertSeqno,
    prev_blocks: prevBlockIds(id, i).map(blockIdExt),
  };
}
