import { hash as oneShotHash } from 'node:crypto';
import type { CellTable } from '../boc/cells.js';
import { BocError } from '../boc/errors.js';
import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { type CellPart, hashCell, partBoc, partIdentity } from '../boc/subtree.js';
import { type Block, loadBlock, shardChild, shardParent, type ExtBlkRef } from '../tlb/block.js';
import { type CurrencyCollection, rawAddress } from '../tlb/common.js';
import type { Message } from '../tlb/message.js';
import { loadTransaction, type TrComputePhase, type Transaction, type TransactionDescr } from '../tlb/transaction.js';
import type { BlockId, BlockRecord, BlockRef, ComputePhaseRecord, CurrencyRecord, MessageRecord, MessageRow, TransactionDescrRecord, TransactionRecord } from '@tonstream/records';
import type { BlockRecords, TouchedAccount } from './block-records.js';

export type DecodeOptions = {
  /**
   * The block's root hash (hex or base64) when the caller already knows it, e.g. from the
   * masterchain's ShardHashes or the liteserver's block id. It is then trusted, not recomputed,
   * which skips hashing the Merkle state update (most of a block's cells). Default: computed.
   */
  rootHash?: string;
  /** The BoC's file hash when known; default: SHA-256 of `bytes`. */
  fileHash?: string;
  /** Seqno of the masterchain block that commits this block; masterchain blocks default to their own. */
  mcSeqno?: number;
};

/** Decodes a block BoC into the indexer's records. */
export function decodeBlock(bytes: Uint8Array, options: DecodeOptions = {}): BlockRecords {
  const cells = parseBoc(bytes);
  const block = loadBlock(cells);
  return blockRecords(block, bytes, options);
}

export function blockRecords(block: Block, bytes: Uint8Array, options: DecodeOptions = {}): BlockRecords {
  const { cells, info } = block;
  const rootHash = options.rootHash !== undefined ? toBase64(options.rootHash) : b64(cells.hash(block.cell));
  const fileHash = options.fileHash !== undefined ? toBase64(options.fileHash) : b64(oneShotHash('sha256', bytes, 'buffer'));
  const workchain = info.shard.workchain;
  const id: BlockId = { workchain, shard: shardHex(info.shard.shard), seqno: info.seqno };
  const mcSeqno = options.mcSeqno ?? (info.notMaster ? null : info.seqno);

  const transactions: TransactionRecord[] = [];
  const messages: MessageRow[] = [];
  const accounts: TouchedAccount[] = [];
  for (const ab of block.extra.accountBlocks) {
    const account = `${workchain}:${ab.accountAddr.toUpperCase()}`;
    for (const tx of ab.transactions) {
      const rec = transactionRecord(cells, tx, account, id, mcSeqno, info.genSoftware?.version);
      transactions.push(rec);
      const row = { tx_hash: rec.hash, tx_lt: rec.lt, mc_block_seqno: mcSeqno };
      if (rec.in_msg) messages.push({ ...rec.in_msg, direction: 'in', ...row });
      for (const m of rec.out_msgs) messages.push({ ...m, direction: 'out', ...row });
    }
    const last = transactions[transactions.length - 1];
    accounts.push({ account, last_trans_lt: last.lt, last_trans_hash: last.hash, tx_count: ab.transactions.length });
  }

  const prevRefs = prevBlockRefs(block);
  const record: BlockRecord = {
    ...id,
    root_hash: rootHash,
    file_hash: fileHash,
    mc_block_seqno: mcSeqno,
    global_id: block.globalId,
    version: info.version,
    after_merge: info.afterMerge,
    before_split: info.beforeSplit,
    after_split: info.afterSplit,
    want_merge: info.wantMerge,
    want_split: info.wantSplit,
    key_block: info.keyBlock,
    vert_seqno_incr: info.vertSeqnoIncr,
    flags: info.flags,
    gen_utime: String(info.genUtime),
    start_lt: info.startLt.toString(),
    end_lt: info.endLt.toString(),
    validator_list_hash_short: info.genValidatorListHashShort,
    gen_catchain_seqno: info.genCatchainSeqno,
    min_ref_mc_seqno: info.minRefMcSeqno,
    prev_key_block_seqno: info.prevKeyBlockSeqno,
    vert_seqno: info.vertSeqno,
    master_ref_seqno: info.masterRef?.seqno ?? info.seqno,
    rand_seed: toBase64(block.extra.randSeed),
    created_by: toBase64(block.extra.createdBy),
    tx_count: transactions.length,
    // As toncenter fills it: the committing masterchain block; master_ref only when that is unknown.
    masterchain_block_ref: { workchain: -1, shard: '8000000000000000', seqno: mcSeqno ?? info.masterRef?.seqno ?? info.seqno },
    prev_blocks: prevRefs.map(({ workchain: w, shard, seqno }) => ({ workchain: w, shard, seqno })),
    prev_refs: prevRefs,
    in_msg_descr_length: block.extra.inMsgDescr.length,
    out_msg_descr_length: block.extra.outMsgDescr.length,
    value_flow: {
      from_prev_blk: currency(block.valueFlow.fromPrevBlk),
      to_next_blk: currency(block.valueFlow.toNextBlk),
      imported: currency(block.valueFlow.imported),
      exported: currency(block.valueFlow.exported),
      fees_collected: currency(block.valueFlow.feesCollected),
      burned: block.valueFlow.burned ? currency(block.valueFlow.burned) : null,
      fees_imported: currency(block.valueFlow.feesImported),
      recovered: currency(block.valueFlow.recovered),
      created: currency(block.valueFlow.created),
      minted: currency(block.valueFlow.minted),
    },
  };

  const shards = (block.extra.custom?.shardHashes ?? []).map((d) => ({
    workchain: d.workchain,
    shard: shardHex(d.shard),
    seqno: d.seqno,
    root_hash: toBase64(d.rootHash),
    file_hash: toBase64(d.fileHash),
    end_lt: d.endLt.toString(),
    start_lt: d.startLt.toString(),
    gen_utime: d.genUtime,
    reg_mc_seqno: d.regMcSeqno,
    before_split: d.beforeSplit,
    before_merge: d.beforeMerge,
    want_split: d.wantSplit,
    want_merge: d.wantMerge,
  }));

  if (block.extra.custom) record.shard_tops = shards.map(({ workchain: w, shard, seqno }) => ({ workchain: w, shard, seqno }));
  return { block: record, transactions, messages, accounts, shards };
}

/** Parent block ids: the same shard, its parent after a split, or its two children after a merge. */
function prevBlockRefs(block: Block): BlockRef[] {
  const { info } = block;
  const w = info.shard.workchain;
  const ref = (r: ExtBlkRef, shard: bigint): BlockRef => ({
    workchain: w,
    shard: shardHex(shard),
    seqno: r.seqno,
    root_hash: toBase64(r.rootHash),
    file_hash: toBase64(r.fileHash),
    end_lt: r.endLt.toString(),
  });
  if (info.afterMerge) {
    return [ref(info.prevRefs[0], shardChild(info.shard.shard, false)), ref(info.prevRefs[1], shardChild(info.shard.shard, true))];
  }
  return [ref(info.prevRefs[0], info.afterSplit ? shardParent(info.shard.shard) : info.shard.shard)];
}

/**
 * `globalVersion`: the chain's global version the block was made under (its gen_software); see messageRecord.
 * `known`: the transaction's hash and BoC when the caller holds them (transactionFromBoc of a stored row).
 */
export function transactionRecord(
  cells: CellTable,
  tx: Transaction,
  account: string,
  blockRef: BlockId,
  mcSeqno: number | null,
  globalVersion?: number,
  known?: { hash: string; boc: string },
): TransactionRecord {
  const outMsgs = tx.outMsgs.map((m) => messageRecord(cells, m, globalVersion));
  outMsgs.sort((a, b) => (BigInt(a.created_lt ?? 0) < BigInt(b.created_lt ?? 0) ? -1 : 1));
  return {
    account,
    hash: known?.hash ?? b64(cells.hash(tx.cell)),
    lt: tx.lt.toString(),
    now: tx.now,
    mc_block_seqno: mcSeqno,
    prev_trans_hash: toBase64(tx.prevTransHash),
    prev_trans_lt: tx.prevTransLt.toString(),
    orig_status: tx.origStatus,
    end_status: tx.endStatus,
    total_fees: tx.totalFees.grams.toString(),
    total_fees_extra_currencies: tx.totalFees.other,
    account_state_hash_before: toBase64(tx.stateUpdate.oldHash),
    account_state_hash_after: toBase64(tx.stateUpdate.newHash),
    description: descriptionRecord(tx.description),
    block_ref: blockRef,
    in_msg: tx.inMsg ? messageRecord(cells, tx.inMsg, globalVersion) : null,
    out_msgs: outMsgs,
    global_version: globalVersion ?? null,
    boc: known?.boc ?? b64(partBoc(cells, { kind: 'cell', cell: tx.cell })),
  };
}

/**
 * What a transaction's record takes from its block: the BoC of the transaction cell alone does not say it.
 * `hash`: the transaction's hash when the caller has it (a stored row's key): then neither it nor the
 * BoC is computed again (hashing every cell of the transaction and writing its BoC anew were a third
 * of a derivation; the BoC given is the one that would be written, as transactionRecord wrote it).
 */
export type TransactionContext = { account: string; blockRef: BlockId; mcSeqno: number | null; globalVersion?: number | null; hash?: string };

/**
 * The record of a transaction from the BoC `transactionRecord` put in it (base64): the same function on
 * the same cells, so the same record, messages included. The store keeps the BoC and derives the rest.
 */
export function transactionFromBoc(boc: string, context: TransactionContext): TransactionRecord {
  const { cells, tx } = loadTransactionOf(boc, context);
  const known = context.hash === undefined ? undefined : { hash: context.hash, boc };
  return transactionRecord(cells, tx, context.account, context.blockRef, context.mcSeqno, context.globalVersion ?? undefined, known);
}

/**
 * One message of a transaction BoC, as `transactionRecord` has it (`messageRecord` on the same cells),
 * found by its side and hash, without the rest of the record: the transaction's own hash and BoC cost as
 * much as all its messages together. Undefined when the transaction has no such message.
 */
export function messageFromBoc(boc: string, context: TransactionContext, direction: 'in' | 'out', hash: string): MessageRecord | undefined {
  const { cells, tx } = loadTransactionOf(boc, context);
  const candidates = direction === 'in' ? (tx.inMsg ? [tx.inMsg] : []) : tx.outMsgs;
  const m = candidates.find((c) => b64(cells.hash(c.cell)) === hash);
  return m && messageRecord(cells, m, context.globalVersion ?? undefined);
}

/** loadTransactionBoc of the transaction `context` names: a BoC of another account's is an error. */
function loadTransactionOf(boc: string, context: TransactionContext): { cells: CellTable; tx: Transaction } {
  const loaded = loadTransactionBoc(boc);
  const account = `${context.blockRef.workchain}:${loaded.tx.accountAddr.toUpperCase()}`;
  if (context.account !== account) throw new BocError(`the transaction is of account ${account} (by its cell and block), not ${context.account}`);
  return loaded;
}

/** A transaction BoC (base64) read, its cells not hashed: what it says without the cost of a record. */
export function loadTransactionBoc(boc: string): { cells: CellTable; tx: Transaction } {
  const cells = parseBoc(Buffer.from(boc, 'base64'));
  if (cells.roots.length !== 1) throw new BocError(`a transaction BoC has one root, not ${cells.roots.length}`);
  return { cells, tx: loadTransaction(new Slice(cells, cells.roots[0], 'Transaction')) };
}

/** From this global version on, int_msg_info's old `ihr_fee` bits are `extra_flags` (TVM upgrade of 2025). */
export const EXTRA_FLAGS_VERSION = 12;

/**
 * `globalVersion` decides what the fee field after `value` is, as toncenter's indexer reads it: from
 * EXTRA_FLAGS_VERSION on it is `extra_flags` (and `ihr_fee` is 0), before it `ihr_fee` (and
 * `extra_flags` null). Unknown (a block without gen_software, a lone message): the old reading.
 */
export function messageRecord(cells: CellTable, m: Message, globalVersion?: number): MessageRecord {
  const info = m.info;
  const flagsEra = globalVersion !== undefined && globalVersion >= EXTRA_FLAGS_VERSION;
  const body = content(cells, m.body);
  const rec: MessageRecord = {
    hash: b64(cells.hash(m.cell)),
    source: rawAddress(info.src),
    destination: rawAddress(info.dest),
    value: info.type === 'internal' ? info.value.grams.toString() : null,
    value_extra_currencies: info.type === 'internal' ? info.value.other : {},
    fwd_fee: info.type === 'internal' ? info.fwdFee.toString() : null,
    ihr_fee: info.type === 'internal' ? (flagsEra ? '0' : info.ihrFee.toString()) : null,
    extra_flags: info.type === 'internal' && flagsEra ? info.ihrFee.toString() : null,
    import_fee: info.type === 'external-in' ? info.importFee.toString() : null,
    created_lt: info.type === 'external-in' ? null : info.createdLt.toString(),
    created_at: info.type === 'external-in' ? null : String(info.createdAt),
    opcode: opcode(cells, m.body),
    ihr_disabled: info.type === 'internal' ? info.ihrDisabled : null,
    bounce: info.type === 'internal' ? info.bounce : null,
    bounced: info.type === 'internal' ? info.bounced : null,
    message_content: body,
    init_state: m.init ? content(cells, m.init) : null,
  };
  if (info.type === 'external-in' && info.dest.type === 'std') rec.hash_norm = normalizedExternalHash(cells, info.dest.workchain, info.dest.hash, m.body);
  return rec;
}

function content(cells: CellTable, part: CellPart): { hash: string; body: string } {
  return { hash: b64(partIdentity(cells, part).hash), body: Buffer.from(partBoc(cells, part)).toString('base64') };
}

/** The body's first 32 bits as `0x%08x`, or null when the body is shorter. */
function opcode(cells: CellTable, part: CellPart): string | null {
  const s = new Slice(cells, part.cell, 'Message.body');
  if (part.kind === 'inline') s.skip(part.bit);
  if (s.remainingBits < 32) return null;
  return '0x' + s.loadUint(32).toString(16).padStart(8, '0');
}

/**
 * TEP-467: the hash of the external-in message with src = addr_none, import_fee = 0, no init and the
 * body always in a reference, so that resending the same signed body gives the same hash.
 */
function normalizedExternalHash(cells: CellTable, workchain: number, addrHex: string, body: CellPart): string {
  // ext_in_msg_info$10 src:addr_none$00 dest:addr_std$10 anycast:nothing$0 workchain_id:int8 address:bits256
  // import_fee:(VarUInteger 16 = 0000) init:nothing$0 body:right$1 ^X  => 2+2+2+1+8+256+4+1+1 = 277 bits
  const data = new Uint8Array(35);
  let bit = 0;
  const put = (v: number, n: number) => {
    for (let k = n - 1; k >= 0; k--, bit++) if ((v >> k) & 1) data[bit >> 3] |= 0x80 >> (bit & 7);
  };
  put(0b10, 2);
  put(0b00, 2);
  put(0b100, 3);
  put(workchain & 0xff, 8);
  for (let k = 0; k < 32; k++) put(parseInt(addrHex.slice(k * 2, k * 2 + 2), 16), 8);
  put(0b0000, 4);
  put(0b0, 1);
  put(0b1, 1);
  return b64(hashCell(data, bit, [partIdentity(cells, body)]).hash);
}

function descriptionRecord(d: TransactionDescr): TransactionDescrRecord {
  const out: TransactionDescrRecord = { type: d.type };
  if ('aborted' in d) out.aborted = d.aborted;
  if ('destroyed' in d) out.destroyed = d.destroyed;
  if (d.type === 'ord') out.credit_first = d.creditFirst;
  if (d.type === 'tick_tock') out.is_tock = d.isTock;
  if (d.type === 'split_install') out.installed = d.installed;
  if ('storagePh' in d && d.storagePh) {
    out.storage_ph = {
      storage_fees_collected: d.storagePh.storageFeesCollected.toString(),
      storage_fees_due: d.storagePh.storageFeesDue?.toString() ?? null,
      status_change: d.storagePh.statusChange,
    };
  }
  if ('creditPh' in d && d.creditPh) {
    out.credit_ph = {
      due_fees_collected: d.creditPh.dueFeesCollected?.toString() ?? null,
      credit: d.creditPh.credit.grams.toString(),
      credit_extra_currencies: d.creditPh.credit.other,
    };
  }
  if ('computePh' in d) out.compute_ph = computeRecord(d.computePh);
  if ('action' in d && d.action) {
    const a = d.action;
    out.action = {
      success: a.success,
      valid: a.valid,
      no_funds: a.noFunds,
      status_change: a.statusChange,
      total_fwd_fees: a.totalFwdFees?.toString() ?? null,
      total_action_fees: a.totalActionFees?.toString() ?? null,
      result_code: a.resultCode,
      result_arg: a.resultArg ?? null,
      tot_actions: a.totActions,
      spec_actions: a.specActions,
      skipped_actions: a.skippedActions,
      msgs_created: a.msgsCreated,
      action_list_hash: toBase64(a.actionListHash),
      tot_msg_size: { cells: a.totMsgSize.cells.toString(), bits: a.totMsgSize.bits.toString() },
    };
  }
  if (d.type === 'ord' && d.bounce) {
    const b = d.bounce;
    out.bounce =
      b.type === 'negfunds'
        ? { type: 'negfunds' }
        : b.type === 'nofunds'
          ? { type: 'nofunds', msg_size: size(b.msgSize), req_fwd_fees: b.reqFwdFees.toString() }
          : { type: 'ok', msg_size: size(b.msgSize), msg_fees: b.msgFees.toString(), fwd_fees: b.fwdFees.toString() };
  }
  if ('splitInfo' in d) {
    out.split_info = {
      cur_shard_pfx_len: d.splitInfo.curShardPfxLen,
      acc_split_depth: d.splitInfo.accSplitDepth,
      this_addr: toBase64(d.splitInfo.thisAddr),
      sibling_addr: toBase64(d.splitInfo.siblingAddr),
    };
  }
  return out;
}

function computeRecord(c: TrComputePhase): ComputePhaseRecord {
  if (c.type === 'skipped') return { skipped: true, reason: c.reason };
  return {
    skipped: false,
    success: c.success,
    msg_state_used: c.msgStateUsed,
    account_activated: c.accountActivated,
    gas_fees: c.gasFees.toString(),
    gas_used: c.gasUsed.toString(),
    gas_limit: c.gasLimit.toString(),
    gas_credit: c.gasCredit?.toString() ?? null,
    mode: c.mode,
    exit_code: c.exitCode,
    exit_arg: c.exitArg ?? null,
    vm_steps: c.vmSteps,
    vm_init_state_hash: toBase64(c.vmInitStateHash),
    vm_final_state_hash: toBase64(c.vmFinalStateHash),
  };
}

function size(s: { cells: bigint; bits: bigint }) {
  return { cells: s.cells.toString(), bits: s.bits.toString() };
}

function currency(c: CurrencyCollection): CurrencyRecord {
  return { grams: c.grams.toString(), other: c.other };
}

/** Shard id as toncenter prints it: 16 uppercase hex digits. */
export function shardHex(shard: bigint): string {
  return shard.toString(16).toUpperCase().padStart(16, '0');
}

/** Bytes (a hash) as standard base64, as toncenter prints hashes. */
export function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Accepts 64-char hex or 44-char base64. */
export function toBase64(hash: string): string {
  return /^[0-9a-fA-F]{64}$/.test(hash) ? Buffer.from(hash, 'hex').toString('base64') : hash;
}
