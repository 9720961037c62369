import type { TokenEvent } from './token-events.js';
/**
 * The indexer's records, named as toncenter v3 names them (docs/toncenter-v3.md §3): hashes in
 * standard base64, addresses raw uppercase (`0:ABC…`), 64-bit values and amounts as decimal strings.
 * They are plain JSON: what the decoder publishes, the writer stores and the API serves.
 */

export type BlockId = { workchain: number; shard: string; seqno: number };

export type BlockRecord = BlockId & {
  root_hash: string;
  file_hash: string;
  /** The masterchain block that commits this one; null when the decoder was not told. */
  mc_block_seqno: number | null;
  global_id: number;
  version: number;
  after_merge: boolean;
  before_split: boolean;
  after_split: boolean;
  want_merge: boolean;
  want_split: boolean;
  key_block: boolean;
  vert_seqno_incr: boolean;
  flags: number;
  gen_utime: string;
  start_lt: string;
  end_lt: string;
  validator_list_hash_short: number;
  gen_catchain_seqno: number;
  min_ref_mc_seqno: number;
  prev_key_block_seqno: number;
  vert_seqno: number;
  master_ref_seqno: number;
  rand_seed: string;
  created_by: string;
  tx_count: number;
  masterchain_block_ref: BlockId;
  prev_blocks: BlockId[];
  /** Not a v3 field: full refs of the parents, for following the chain. */
  prev_refs: BlockRef[];
  in_msg_descr_length: number;
  out_msg_descr_length: number;
  value_flow: ValueFlowRecord;
  /** Not a v3 field; masterchain blocks only: the shard blocks its ShardHashes reference (its shard state). */
  shard_tops?: BlockId[];
};

export type BlockRef = BlockId & { root_hash: string; file_hash: string; end_lt: string };

export type CurrencyRecord = { grams: string; other: Record<string, string> };

export type ValueFlowRecord = {
  from_prev_blk: CurrencyRecord;
  to_next_blk: CurrencyRecord;
  imported: CurrencyRecord;
  exported: CurrencyRecord;
  fees_collected: CurrencyRecord;
  burned: CurrencyRecord | null;
  fees_imported: CurrencyRecord;
  recovered: CurrencyRecord;
  created: CurrencyRecord;
  minted: CurrencyRecord;
};

export type MessageContent = { hash: string; body: string };

export type MessageRecord = {
  hash: string;
  source: string | null;
  destination: string | null;
  value: string | null;
  value_extra_currencies: Record<string, string>;
  fwd_fee: string | null;
  ihr_fee: string | null;
  /**
   * int_msg_info's `extra_flags`, from global version 12 on (before it, the same bits were `ihr_fee`):
   * null for external messages and older blocks; absent from records written before it was read.
   */
  extra_flags?: string | null;
  import_fee: string | null;
  created_lt: string | null;
  created_at: string | null;
  opcode: string | null;
  ihr_disabled: boolean | null;
  bounce: boolean | null;
  bounced: boolean | null;
  message_content: MessageContent;
  init_state: MessageContent | null;
  /** TEP-467 normalized hash, external-in messages only. */
  hash_norm?: string;
};

/** A message as the messages table stores it: one row per (hash, direction, transaction). */
export type MessageRow = MessageRecord & { direction: 'in' | 'out'; tx_hash: string; tx_lt: string; mc_block_seqno: number | null };

export type StorageUsedRecord = { cells: string; bits: string };

export type TransactionDescrRecord = {
  type: 'ord' | 'storage' | 'tick_tock' | 'split_prepare' | 'split_install' | 'merge_prepare' | 'merge_install';
  aborted?: boolean;
  destroyed?: boolean;
  credit_first?: boolean;
  is_tock?: boolean;
  installed?: boolean;
  storage_ph?: { storage_fees_collected: string; storage_fees_due: string | null; status_change: string };
  credit_ph?: { due_fees_collected: string | null; credit: string; credit_extra_currencies: Record<string, string> };
  compute_ph?: ComputePhaseRecord;
  action?: ActionPhaseRecord;
  bounce?: { type: 'negfunds' | 'nofunds' | 'ok'; msg_size?: StorageUsedRecord; req_fwd_fees?: string; msg_fees?: string; fwd_fees?: string };
  split_info?: { cur_shard_pfx_len: number; acc_split_depth: number; this_addr: string; sibling_addr: string };
};

export type ComputePhaseRecord =
  | { skipped: true; reason: string }
  | {
      skipped: false;
      success: boolean;
      msg_state_used: boolean;
      account_activated: boolean;
      gas_fees: string;
      gas_used: string;
      gas_limit: string;
      gas_credit: string | null;
      mode: number;
      exit_code: number;
      exit_arg: number | null;
      vm_steps: number;
      vm_init_state_hash: string;
      vm_final_state_hash: string;
    };

export type ActionPhaseRecord = {
  success: boolean;
  valid: boolean;
  no_funds: boolean;
  status_change: string;
  total_fwd_fees: string | null;
  total_action_fees: string | null;
  result_code: number;
  result_arg: number | null;
  tot_actions: number;
  spec_actions: number;
  skipped_actions: number;
  msgs_created: number;
  action_list_hash: string;
  tot_msg_size: StorageUsedRecord;
};

export type TransactionRecord = {
  account: string;
  hash: string;
  lt: string;
  now: number;
  mc_block_seqno: number | null;
  prev_trans_hash: string;
  prev_trans_lt: string;
  orig_status: string;
  end_status: string;
  total_fees: string;
  total_fees_extra_currencies: Record<string, string>;
  /** Account state hashes from the transaction's HASH_UPDATE. */
  account_state_hash_before: string;
  account_state_hash_after: string;
  description: TransactionDescrRecord;
  block_ref: BlockId;
  in_msg: MessageRecord | null;
  /** Sorted by created_lt, as toncenter returns them. */
  out_msgs: MessageRecord[];
  /**
   * The chain's global version the block was made under (its gen_software), null when the block does
   * not say; it decides how int_msg_info's fee bits read (messageRecord). With the BoC it is all the
   * store needs to derive the record again. Absent in records of older decoders.
   */
  global_version?: number | null;
  /**
   * The transaction cell as a BoC, base64 (v2 getTransactions' `data`). The decoder puts it last; the
   * store keeps it apart from the record (transaction_bocs). Absent in records of older decoders.
   */
  boc?: string;
};

/** An account's state after a block (toncenter `AccountStateFull` names). */
export type AccountStateRecord = {
  account: string;
  account_state_hash: string;
  balance: string;
  extra_currencies: Record<string, string>;
  status: 'uninit' | 'frozen' | 'active' | 'nonexist';
  frozen_hash: string | null;
  code_hash: string | null;
  data_hash: string | null;
  code_boc: string | null;
  data_boc: string | null;
  last_trans_lt: string;
  last_trans_hash: string;
  mc_block_seqno: number | null;
  gen_utime: number;
  /** What the contract is, read by the decoder (@tonstream/contracts `describeAccount`); absent on states from before it did. */
  contract?: ContractFactsJson;
};

/**
 * An account's contract facts as they travel: its code's interfaces and get-method ids, and one
 * entry per standard its data reads as (their types are @tonstream/contracts' `ContractFacts`).
 */
export type ContractFactsJson = { interfaces: string[]; methods: number[] | null; [standard: string]: unknown };

/** A message named by its hash. */
export type MessageRef = { hash: string };

/**
 * A transaction as the pipeline publishes and stores it: its messages by reference, since they
 * travel and are stored once, as `MessageRow`s. A full `TransactionRecord` is also a valid row.
 */
export type TransactionRow = Omit<TransactionRecord, 'in_msg' | 'out_msgs'> & { in_msg: MessageRef | null; out_msgs: MessageRef[]; token_events?: TokenEvent[] };

/** The row form of a transaction: its messages cut down to their hashes. */
export function transactionRow(t: TransactionRow): TransactionRow {
  return { ...t, in_msg: t.in_msg && { hash: t.in_msg.hash }, out_msgs: t.out_msgs.map((m) => ({ hash: m.hash })) };
}

/** True when a transaction names its messages by hash only, as `transactionRow` leaves it. */
export function isTransactionRow(t: TransactionRow): boolean {
  const refOnly = (m: object) => Object.keys(m).length === 1;
  return (t.in_msg === null || refOnly(t.in_msg)) && t.out_msgs.every(refOnly);
}
