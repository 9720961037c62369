import type { ExtBlkRef } from '../tlb/block.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { BuildError } from './errors.js';

export const MASTERCHAIN = -1;

/**
 * A BlockInfo to write. Field names follow the reader's `BlockInfo`, so a decoded one can be passed;
 * `not_master`, `flags` and `vert_seqno_incr` follow from the shard, `genSoftware` and `prevVertRef`.
 * Flags default to false and numbers to 0.
 */
export type BlockInfoDesc = {
  version?: number;
  /** The shard id with its tag bit, e.g. 0x8000000000000000n for a whole workchain. */
  shard: { workchain: number; shard: bigint };
  seqno: number;
  vertSeqno?: number;
  afterMerge?: boolean;
  beforeSplit?: boolean;
  afterSplit?: boolean;
  wantSplit?: boolean;
  wantMerge?: boolean;
  keyBlock?: boolean;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  genValidatorListHashShort?: number;
  genCatchainSeqno?: number;
  minRefMcSeqno?: number;
  prevKeyBlockSeqno?: number;
  /** capabilities#c4 version:uint32 capabilities:uint64 = GlobalVersion; sets flags bit 0. */
  genSoftware?: { version: number; capabilities: bigint };
  /** The masterchain block this shard block refers to; required outside the masterchain. */
  masterRef?: ExtBlkRef;
  /** One parent, or two after a merge. */
  prevRefs: ExtBlkRef[];
  prevVertRef?: ExtBlkRef;
};

/**
 * block_info#9bc7a987 version:uint32 not_master:(## 1) after_merge:(## 1) before_split:(## 1) after_split:(## 1)
 *   want_split:Bool want_merge:Bool key_block:Bool vert_seqno_incr:(## 1) flags:(## 8) { flags <= 1 }
 *   seq_no:# vert_seq_no:# { vert_seq_no >= vert_seqno_incr } { prev_seq_no:# } { ~prev_seq_no + 1 = seq_no }
 *   shard:ShardIdent gen_utime:uint32 start_lt:uint64 end_lt:uint64 gen_validator_list_hash_short:uint32
 *   gen_catchain_seqno:uint32 min_ref_mc_seqno:uint32 prev_key_block_seqno:uint32 gen_software:flags . 0?GlobalVersion
 *   master_ref:not_master?^BlkMasterInfo prev_ref:^(BlkPrevInfo after_merge) prev_vert_ref:vert_seqno_incr?^(BlkPrevInfo 0) = BlockInfo;
 */
export function buildBlockInfo(d: BlockInfoDesc): Cell {
  const notMaster = d.shard.workchain !== MASTERCHAIN;
  const vertSeqnoIncr = d.prevVertRef !== undefined;
  const vertSeqno = d.vertSeqno ?? 0;
  if (d.seqno < 1) throw new BuildError(`BlockInfo: seq_no ${d.seqno} must be at least 1 (prev_seq_no + 1)`);
  if (vertSeqno < (vertSeqnoIncr ? 1 : 0)) throw new BuildError('BlockInfo: vert_seq_no must be >= 1 with a prev_vert_ref');
  if (d.startLt > d.endLt) throw new BuildError(`BlockInfo: start_lt ${d.startLt} > end_lt ${d.endLt}`);
  if (notMaster !== (d.masterRef !== undefined)) throw new BuildError('BlockInfo: master_ref is required outside the masterchain and absent in it');
  if (d.prevRefs.length !== (d.afterMerge ? 2 : 1)) throw new BuildError(`BlockInfo: ${d.afterMerge ? 'after a merge two' : 'one'} prev_ref expected, got ${d.prevRefs.length}`);
  const b = new Builder()
    .storeUint(0x9bc7a987, 32)
    .storeUint(d.version ?? 0, 32)
    .storeBit(notMaster)
    .storeBit(d.afterMerge ?? false)
    .storeBit(d.beforeSplit ?? false)
    .storeBit(d.afterSplit ?? false)
    .storeBit(d.wantSplit ?? false)
    .storeBit(d.wantMerge ?? false)
    .storeBit(d.keyBlock ?? false)
    .storeBit(vertSeqnoIncr)
    .storeUint(d.genSoftware ? 1 : 0, 8)
    .storeUint(d.seqno, 32)
    .storeUint(vertSeqno, 32);
  storeShardIdent(b, d.shard);
  b.storeUint(d.genUtime, 32)
    .storeUint(d.startLt, 64)
    .storeUint(d.endLt, 64)
    .storeUint(d.genValidatorListHashShort ?? 0, 32)
    .storeUint(d.genCatchainSeqno ?? 0, 32)
    .storeUint(d.minRefMcSeqno ?? 0, 32)
    .storeUint(d.prevKeyBlockSeqno ?? 0, 32);
  if (d.genSoftware) b.storeUint(0xc4, 8).storeUint(d.genSoftware.version, 32).storeUint(d.genSoftware.capabilities, 64);
  // master_info$_ master:ExtBlkRef = BlkMasterInfo;
  if (d.masterRef) b.storeRef(extBlkRefCell(d.masterRef));
  // prev_blk_info$_ prev:ExtBlkRef = BlkPrevInfo 0;  prev_blks_info$_ prev1:^ExtBlkRef prev2:^ExtBlkRef = BlkPrevInfo 1;
  b.storeRef(d.afterMerge ? new Builder().storeRef(extBlkRefCell(d.prevRefs[0])).storeRef(extBlkRefCell(d.prevRefs[1])).endCell() : extBlkRefCell(d.prevRefs[0]));
  if (d.prevVertRef) b.storeRef(extBlkRefCell(d.prevVertRef));
  return b.endCell();
}

/**
 * shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64 = ShardIdent;
 * The prefix is stored without the tag bit, as validators write it.
 */
export function storeShardIdent(b: Builder, shard: { workchain: number; shard: bigint }): void {
  const low = shard.shard & -shard.shard;
  const pfxBits = 63 - (low.toString(2).length - 1);
  if (shard.shard <= 0n || shard.shard >= 1n << 64n || pfxBits > 60) throw new BuildError(`not a shard id: ${shard.shard.toString(16)}`);
  b.storeUint(0, 2).storeUint(pfxBits, 6).storeInt(shard.workchain, 32).storeUint(shard.shard - low, 64);
}

/** ext_blk_ref$_ end_lt:uint64 seq_no:uint32 root_hash:bits256 file_hash:bits256 = ExtBlkRef; */
export function storeExtBlkRef(b: Builder, r: ExtBlkRef): void {
  b.storeUint(r.endLt, 64).storeUint(r.seqno, 32).storeHash(r.rootHash).storeHash(r.fileHash);
}

function extBlkRefCell(r: ExtBlkRef): Cell {
  const b = new Builder();
  storeExtBlkRef(b, r);
  return b.endCell();
}
