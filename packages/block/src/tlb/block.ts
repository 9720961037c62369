import type { CellTable } from '../boc/cells.js';
import { MERKLE_UPDATE } from '../boc/cells.js';
import { Slice } from '../boc/slice.js';
import { type CurrencyCollection, loadCurrencyCollection, skipCurrencyCollection } from './common.js';
import { type ConfigParams, loadConfigParams } from './config.js';
import { keyToHex, keyToSigned, walkHashmapAugE, walkHashmapE, walkHashmap } from './hashmap.js';
import { type InMsgKind, loadInMsgDescr, loadOutMsgDescr, type MsgDescrEntry, type OutMsgKind } from './msg-descr.js';
import { loadTransaction, type Transaction } from './transaction.js';

/** ext_blk_ref$_ end_lt:uint64 seq_no:uint32 root_hash:bits256 file_hash:bits256 = ExtBlkRef; */
export type ExtBlkRef = { endLt: bigint; seqno: number; rootHash: string; fileHash: string };

/** shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64; `shard` is the 64-bit shard id with its tag bit. */
export type ShardIdent = { workchain: number; shardPfxBits: number; shard: bigint };

export type BlockInfo = {
  version: number;
  notMaster: boolean;
  afterMerge: boolean;
  beforeSplit: boolean;
  afterSplit: boolean;
  wantSplit: boolean;
  wantMerge: boolean;
  keyBlock: boolean;
  vertSeqnoIncr: boolean;
  flags: number;
  seqno: number;
  vertSeqno: number;
  shard: ShardIdent;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  genValidatorListHashShort: number;
  genCatchainSeqno: number;
  minRefMcSeqno: number;
  prevKeyBlockSeqno: number;
  /** capabilities#c4 version:uint32 capabilities:uint64 */
  genSoftware?: { version: number; capabilities: bigint };
  masterRef?: ExtBlkRef;
  /** One parent, or two after a merge. */
  prevRefs: ExtBlkRef[];
  prevVertRef?: ExtBlkRef;
};

export type ValueFlow = {
  fromPrevBlk: CurrencyCollection;
  toNextBlk: CurrencyCollection;
  imported: CurrencyCollection;
  exported: CurrencyCollection;
  feesCollected: CurrencyCollection;
  /** Only in value_flow_v2#3ebf98b7. */
  burned?: CurrencyCollection;
  feesImported: CurrencyCollection;
  recovered: CurrencyCollection;
  created: CurrencyCollection;
  minted: CurrencyCollection;
};

/** acc_trans#5 account_addr:bits256 transactions:(HashmapAug 64 ^Transaction CurrencyCollection) state_update:^(HASH_UPDATE Account) */
export type AccountBlock = { accountAddr: string; transactions: Transaction[]; stateUpdate: { oldHash: string; newHash: string } };

export type FutureSplitMerge = { type: 'none' } | { type: 'split' | 'merge'; utime: number; interval: number };

/** shard_descr#b / shard_descr_new#a, with the workchain and shard id from its place in ShardHashes. */
export type ShardDescr = {
  workchain: number;
  shard: bigint;
  seqno: number;
  regMcSeqno: number;
  startLt: bigint;
  endLt: bigint;
  rootHash: string;
  fileHash: string;
  beforeSplit: boolean;
  beforeMerge: boolean;
  wantSplit: boolean;
  wantMerge: boolean;
  nxCcUpdated: boolean;
  nextCatchainSeqno: number;
  nextValidatorShard: bigint;
  minRefMcSeqno: number;
  genUtime: number;
  splitMergeAt: FutureSplitMerge;
  feesCollected: CurrencyCollection;
  fundsCreated: CurrencyCollection;
};

export type McBlockExtra = { keyBlock: boolean; shardHashes: ShardDescr[]; config?: ConfigParams };

export type BlockExtra = {
  inMsgDescr: MsgDescrEntry<InMsgKind>[];
  outMsgDescr: MsgDescrEntry<OutMsgKind>[];
  accountBlocks: AccountBlock[];
  randSeed: string;
  createdBy: string;
  custom?: McBlockExtra;
};

/**
 * block#11ef55aa global_id:int32 info:^BlockInfo value_flow:^ValueFlow state_update:^(MERKLE_UPDATE ShardState)
 *   extra:^BlockExtra = Block;
 */
export type Block = {
  cells: CellTable;
  cell: number;
  globalId: number;
  info: BlockInfo;
  valueFlow: ValueFlow;
  /** Hashes of the shard state before and after, from the Merkle update. */
  stateUpdate: { oldHash: string; newHash: string };
  extra: BlockExtra;
};

export function loadBlock(cells: CellTable, root = cells.roots[0]): Block {
  const s = new Slice(cells, root, 'Block');
  if (s.loadUint(32) !== 0x11ef55aa) s.fail('not a Block (tag 0x11ef55aa)');
  const globalId = s.loadInt(32);
  const info = loadBlockInfo(s.loadRefSlice('Block.info'));
  const valueFlow = loadValueFlow(s.loadRefSlice('Block.value_flow'));
  const su = s.loadRef();
  if (cells.special[su] !== MERKLE_UPDATE) s.fail('state_update is not a Merkle update cell');
  const suSlice = new Slice(cells, su, 'Block.state_update');
  suSlice.skip(8);
  const stateUpdate = { oldHash: suSlice.loadHash(), newHash: suSlice.loadHash() };
  const extra = loadBlockExtra(s.loadRefSlice('Block.extra'));
  return { cells, cell: root, globalId, info, valueFlow, stateUpdate, extra };
}

export function loadBlockInfo(s: Slice): BlockInfo {
  if (s.loadUint(32) !== 0x9bc7a987) s.fail('not a BlockInfo (tag 0x9bc7a987)');
  const version = s.loadUint(32);
  const notMaster = s.loadBit();
  const afterMerge = s.loadBit();
  const beforeSplit = s.loadBit();
  const afterSplit = s.loadBit();
  const wantSplit = s.loadBit();
  const wantMerge = s.loadBit();
  const keyBlock = s.loadBit();
  const vertSeqnoIncr = s.loadBit();
  const flags = s.loadUint(8);
  if (flags > 1) s.fail(`flags ${flags} > 1`);
  const seqno = s.loadUint(32);
  const vertSeqno = s.loadUint(32);
  if (vertSeqno < (vertSeqnoIncr ? 1 : 0)) s.fail('vert_seq_no < vert_seqno_incr');
  const shard = loadShardIdent(s);
  const genUtime = s.loadUint(32);
  const startLt = s.loadUintBig(64);
  const endLt = s.loadUintBig(64);
  const genValidatorListHashShort = s.loadUint(32);
  const genCatchainSeqno = s.loadUint(32);
  const minRefMcSeqno = s.loadUint(32);
  const prevKeyBlockSeqno = s.loadUint(32);
  let genSoftware: BlockInfo['genSoftware'];
  if (flags & 1) {
    if (s.loadUint(8) !== 0xc4) s.fail('not a GlobalVersion (tag 0xc4)');
    genSoftware = { version: s.loadUint(32), capabilities: s.loadUintBig(64) };
  }
  const masterRef = notMaster ? loadExtBlkRef(s.loadRefSlice('BlockInfo.master_ref')) : undefined;
  const prev = s.loadRefSlice('BlockInfo.prev_ref');
  const prevRefs = afterMerge
    ? [loadExtBlkRef(prev.loadRefSlice('BlockInfo.prev_ref.prev1')), loadExtBlkRef(prev.loadRefSlice('BlockInfo.prev_ref.prev2'))]
    : [loadExtBlkRef(prev)];
  const prevVertRef = vertSeqnoIncr ? loadExtBlkRef(s.loadRefSlice('BlockInfo.prev_vert_ref')) : undefined;
  return {
    version, notMaster, afterMerge, beforeSplit, afterSplit, wantSplit, wantMerge, keyBlock, vertSeqnoIncr, flags, seqno, vertSeqno, shard,
    genUtime, startLt, endLt, genValidatorListHashShort, genCatchainSeqno, minRefMcSeqno, prevKeyBlockSeqno, genSoftware, masterRef, prevRefs, prevVertRef,
  };
}

function loadShardIdent(s: Slice): ShardIdent {
  if (s.loadUint(2) !== 0) s.fail('not a ShardIdent (tag $00)');
  const shardPfxBits = s.loadUint(6);
  if (shardPfxBits > 60) s.fail(`shard_pfx_bits ${shardPfxBits} > 60`);
  const workchain = s.loadInt(32);
  const prefix = s.loadUintBig(64);
  if ((prefix & ((1n << BigInt(64 - shardPfxBits)) - 1n)) !== 0n) s.fail(`shard_prefix has bits set past its ${shardPfxBits} prefix bits`);
  return { workchain, shardPfxBits, shard: prefix | (1n << BigInt(63 - shardPfxBits)) };
}

export function loadExtBlkRef(s: Slice): ExtBlkRef {
  return { endLt: s.loadUintBig(64), seqno: s.loadUint(32), rootHash: s.loadHash(), fileHash: s.loadHash() };
}

/**
 * value_flow#b8e48dfb ^[ from_prev_blk to_next_blk imported exported ] fees_collected ^[ fees_imported recovered created minted ]
 * value_flow_v2#3ebf98b7 ^[ … ] fees_collected burned ^[ … ]
 */
export function loadValueFlow(s: Slice): ValueFlow {
  const tag = s.loadUint(32);
  if (tag !== 0xb8e48dfb && tag !== 0x3ebf98b7) s.fail(`not a ValueFlow (tag 0x${tag.toString(16)})`);
  const a = s.loadRefSlice('ValueFlow.^1');
  const fromPrevBlk = loadCurrencyCollection(a);
  const toNextBlk = loadCurrencyCollection(a);
  const imported = loadCurrencyCollection(a);
  const exported = loadCurrencyCollection(a);
  const feesCollected = loadCurrencyCollection(s);
  const burned = tag === 0x3ebf98b7 ? loadCurrencyCollection(s) : undefined;
  const b = s.loadRefSlice('ValueFlow.^2');
  return {
    fromPrevBlk, toNextBlk, imported, exported, feesCollected, burned,
    feesImported: loadCurrencyCollection(b), recovered: loadCurrencyCollection(b), created: loadCurrencyCollection(b), minted: loadCurrencyCollection(b),
  };
}

/**
 * block_extra#4a33f6fd in_msg_descr:^InMsgDescr out_msg_descr:^OutMsgDescr account_blocks:^ShardAccountBlocks
 *   rand_seed:bits256 created_by:bits256 custom:(Maybe ^McBlockExtra) = BlockExtra;
 */
export function loadBlockExtra(s: Slice): BlockExtra {
  if (s.loadUint(32) !== 0x4a33f6fd) s.fail('not a BlockExtra (tag 0x4a33f6fd)');
  const inMsgDescr = loadInMsgDescr(s.loadRefSlice('BlockExtra.in_msg_descr'));
  const outMsgDescr = loadOutMsgDescr(s.loadRefSlice('BlockExtra.out_msg_descr'));
  const accountBlocks = loadShardAccountBlocks(s.loadRefSlice('BlockExtra.account_blocks'));
  const randSeed = s.loadHash();
  const createdBy = s.loadHash();
  const custom = s.loadBit() ? loadMcBlockExtra(s.loadRefSlice('McBlockExtra')) : undefined;
  return { inMsgDescr, outMsgDescr, accountBlocks, randSeed, createdBy, custom };
}

/** _ (HashmapAugE 256 AccountBlock CurrencyCollection) = ShardAccountBlocks; */
function loadShardAccountBlocks(s: Slice): AccountBlock[] {
  const out: AccountBlock[] = [];
  walkHashmapAugE(
    s,
    256,
    (key, v) => {
      v.path = `account_blocks[${keyToHex(key)}]`;
      if (v.loadUint(4) !== 0x5) v.fail('not an AccountBlock (tag 0x5)');
      const accountAddr = v.loadHash();
      const transactions: Transaction[] = [];
      walkHashmap(
        v,
        64,
        (_lt, tx) => transactions.push(loadTransaction(tx.loadRefSlice(`${v.path}.transactions`))),
        skipCurrencyCollection,
      );
      const su = v.loadRefSlice(`${v.path}.state_update`);
      if (su.loadUint(8) !== 0x72) su.fail('not a HASH_UPDATE (tag 0x72)');
      out.push({ accountAddr, transactions, stateUpdate: { oldHash: su.loadHash(), newHash: su.loadHash() } });
    },
    skipCurrencyCollection,
  );
  return out;
}

/**
 * masterchain_block_extra#cca5 key_block:(## 1) shard_hashes:ShardHashes shard_fees:ShardFees
 *   ^[ prev_blk_signatures:(HashmapE 16 CryptoSignaturePair) recover_create_msg:(Maybe ^InMsg) mint_msg:(Maybe ^InMsg) ]
 *   config:key_block?ConfigParams = McBlockExtra;
 */
export function loadMcBlockExtra(s: Slice): McBlockExtra {
  if (s.loadUint(16) !== 0xcca5) s.fail('not a McBlockExtra (tag 0xcca5)');
  const keyBlock = s.loadBit();
  const shardHashes = loadShardHashes(s);
  // ShardFees = HashmapAugE 96 ShardFeeCreated ShardFeeCreated; shard_fee_created$_ fees:CurrencyCollection create:CurrencyCollection
  if (s.loadBit()) s.loadRef();
  skipCurrencyCollection(s);
  skipCurrencyCollection(s);
  s.loadRef();
  const config = keyBlock ? loadConfigParams(s) : undefined;
  return { keyBlock, shardHashes, config };
}

/** _ (HashmapE 32 ^(BinTree ShardDescr)) = ShardHashes;  bt_leaf$0 leaf:X  bt_fork$1 left:^(BinTree X) right:^(BinTree X) */
export function loadShardHashes(s: Slice): ShardDescr[] {
  const out: ShardDescr[] = [];
  walkHashmapE(s, 32, (key, v) => {
    const workchain = keyToSigned(key);
    const visit = (t: Slice, shard: bigint) => {
      if ((shard & 0xfn) !== 0n) t.fail('shard tree deeper than 60 levels');
      if (!t.loadBit()) {
        out.push(loadShardDescr(t, workchain, shard));
        return;
      }
      const half = (shard & -shard) >> 1n;
      visit(t.loadRefSlice('ShardHashes.left'), shard - half);
      visit(t.loadRefSlice('ShardHashes.right'), shard + half);
    };
    visit(v.loadRefSlice(`ShardHashes[${workchain}]`), 1n << 63n);
  });
  return out;
}

function loadShardDescr(s: Slice, workchain: number, shard: bigint): ShardDescr {
  const tag = s.loadUint(4);
  if (tag !== 0xa && tag !== 0xb) s.fail(`not a ShardDescr (tag 0x${tag.toString(16)})`);
  const seqno = s.loadUint(32);
  const regMcSeqno = s.loadUint(32);
  const startLt = s.loadUintBig(64);
  const endLt = s.loadUintBig(64);
  const rootHash = s.loadHash();
  const fileHash = s.loadHash();
  const beforeSplit = s.loadBit();
  const beforeMerge = s.loadBit();
  const wantSplit = s.loadBit();
  const wantMerge = s.loadBit();
  const nxCcUpdated = s.loadBit();
  const flags = s.loadUint(3);
  if (flags !== 0) s.fail(`ShardDescr flags ${flags} != 0`);
  const nextCatchainSeqno = s.loadUint(32);
  const nextValidatorShard = s.loadUintBig(64);
  const minRefMcSeqno = s.loadUint(32);
  const genUtime = s.loadUint(32);
  const splitMergeAt = loadFutureSplitMerge(s);
  const fees = tag === 0xa ? s.loadRefSlice('ShardDescr.fees') : s;
  return {
    workchain, shard, seqno, regMcSeqno, startLt, endLt, rootHash, fileHash, beforeSplit, beforeMerge, wantSplit, wantMerge, nxCcUpdated,
    nextCatchainSeqno, nextValidatorShard, minRefMcSeqno, genUtime, splitMergeAt,
    feesCollected: loadCurrencyCollection(fees), fundsCreated: loadCurrencyCollection(fees),
  };
}

/** fsm_none$0  fsm_split$10 split_utime:uint32 interval:uint32  fsm_merge$11 merge_utime:uint32 interval:uint32 */
function loadFutureSplitMerge(s: Slice): FutureSplitMerge {
  if (!s.loadBit()) return { type: 'none' };
  const type = s.loadBit() ? 'merge' : 'split';
  return { type, utime: s.loadUint(32), interval: s.loadUint(32) };
}

/** The shard id of a parent/child in the shard tree, for prev-block ids. */
export function shardParent(shard: bigint): bigint {
  const low = shard & -shard;
  return (shard - low) | (low << 1n);
}

export function shardChild(shard: bigint, right: boolean): bigint {
  const half = (shard & -shard) >> 1n;
  return right ? shard + half : shard - half;
}

export { keyToHex };
