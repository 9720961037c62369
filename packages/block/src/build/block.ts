import { hash as oneShotHash } from 'node:crypto';
import { storeShardAccountBlocks } from './account-blocks.js';
import { type BlockInfoDesc, buildBlockInfo, MASTERCHAIN } from './block-info.js';
import { Builder } from './builder.js';
import { Cell } from './cell.js';
import { cellToBoc } from './cell-boc.js';
import { addCurrency } from './currency.js';
import { BuildError } from './errors.js';
import { buildMcBlockExtra, type McBlockExtraDesc } from './mc-extra.js';
import { prunedStateUpdate } from './merkle.js';
import { type InMsgEntry, type OutMsgEntry, storeInMsgDescr, storeOutMsgDescr } from './msg-descr.js';
import { deriveMsgDescr, type MsgRoutingOptions } from './msg-routing.js';
import { summarizeTransactions } from './tx-summary.js';
import { buildValueFlow, type ValueFlowDesc } from './value-flow.js';

const ZERO_HASH = '0'.repeat(64);

export type BlockDesc = {
  globalId: number;
  info: BlockInfoDesc;
  /**
   * Defaults, each overridable: imported, fees_imported and exported are the InMsgDescr/OutMsgDescr
   * totals, fees_collected is the transactions' total fees plus fees_imported, the rest zero.
   */
  valueFlow?: ValueFlowDesc;
  /** Shard state hashes (the Merkle update gets two pruned branches), or a ready MERKLE_UPDATE cell. */
  stateUpdate: { oldHash: string; newHash: string; oldDepth?: number; newDepth?: number } | Cell;
  /** Serialized Transaction cells of this block (e.g. @ton/sandbox `tx.raw`), any order. */
  transactions?: Cell[];
  /** How InMsgDescr/OutMsgDescr are derived from the transactions. */
  routing?: MsgRoutingOptions;
  /** Replace the derived InMsgDescr / OutMsgDescr entries. */
  inMsgs?: InMsgEntry[];
  outMsgs?: OutMsgEntry[];
  /** 64 hex digits; default zeros. */
  randSeed?: string;
  createdBy?: string;
  /** Masterchain blocks only (default: no shards, no fees); a key block needs `config`. */
  mcExtra?: McBlockExtraDesc;
};

export type BuiltBlock = { cell: Cell; boc: Uint8Array; rootHash: string; fileHash: string };

/**
 * block#11ef55aa global_id:int32 info:^BlockInfo value_flow:^ValueFlow state_update:^(MERKLE_UPDATE ShardState)
 *   extra:^BlockExtra = Block;
 * block_extra in_msg_descr:^InMsgDescr out_msg_descr:^OutMsgDescr account_blocks:^ShardAccountBlocks
 *   rand_seed:bits256 created_by:bits256 custom:(Maybe ^McBlockExtra) = BlockExtra;  (tag 0x4a33f6fd)
 * `fileHash` is the SHA-256 of `boc` (this serializer's bytes).
 */
export function buildBlock(d: BlockDesc): BuiltBlock {
  const txs = summarizeTransactions(d.transactions ?? []);
  for (const tx of txs) {
    if (tx.lt < d.info.startLt || tx.lt >= d.info.endLt) {
      throw new BuildError(`transaction ${tx.hash} has lt ${tx.lt}, outside the block's [${d.info.startLt}, ${d.info.endLt})`);
    }
  }
  const derived = d.inMsgs && d.outMsgs ? undefined : deriveMsgDescr(txs, d.info.shard, d.routing);
  const inMsgDescr = new Builder();
  const importFees = storeInMsgDescr(inMsgDescr, d.inMsgs ?? derived!.inMsgs);
  const outMsgDescr = new Builder();
  const exported = storeOutMsgDescr(outMsgDescr, d.outMsgs ?? derived!.outMsgs);
  const accountBlocks = new Builder();
  const txFees = storeShardAccountBlocks(accountBlocks, txs);

  const isMaster = d.info.shard.workchain === MASTERCHAIN;
  if (!isMaster && d.mcExtra) throw new BuildError('McBlockExtra belongs to masterchain blocks only');
  const extra = new Builder()
    .storeUint(0x4a33f6fd, 32)
    .storeRef(inMsgDescr.endCell())
    .storeRef(outMsgDescr.endCell())
    .storeRef(accountBlocks.endCell())
    .storeHash(d.randSeed ?? ZERO_HASH)
    .storeHash(d.createdBy ?? ZERO_HASH)
    .storeMaybeRef(isMaster ? buildMcBlockExtra(d.mcExtra ?? {}, d.info.keyBlock ?? false) : null)
    .endCell();

  const feesImported = { grams: importFees.feesCollected };
  const valueFlow = buildValueFlow({
    imported: importFees.valueImported,
    exported,
    feesImported,
    feesCollected: addCurrency(txFees, feesImported),
    ...d.valueFlow,
  });
  const su = d.stateUpdate instanceof Cell ? d.stateUpdate : prunedStateUpdate(d.stateUpdate.oldHash, d.stateUpdate.newHash, d.stateUpdate.oldDepth, d.stateUpdate.newDepth);
  if (su.type !== 4) throw new BuildError('state_update must be a MERKLE_UPDATE cell');

  const cell = new Builder()
    .storeUint(0x11ef55aa, 32)
    .storeInt(d.globalId, 32)
    .storeRef(buildBlockInfo(d.info))
    .storeRef(valueFlow)
    .storeRef(su)
    .storeRef(extra)
    .endCell();
  const boc = cellToBoc(cell);
  return { cell, boc, rootHash: cell.hashHex(), fileHash: oneShotHash('sha256', boc, 'hex') };
}
