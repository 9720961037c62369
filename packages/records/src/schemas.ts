/**
 * Full checks of every record the decoded topics carry, field by field, with the ranges the store's
 * columns accept (a value ClickHouse cannot parse would fail the whole insert, for good).
 */
import { tokenEvents } from './token-events.js';
import { arrayOf, base64, bool, type Check, decimal, int32, literal, mapOf, nullable, object, optional, pattern, text, uint16, uint32, uint8, variants } from './check.js';

/** A 256-bit hash in standard base64, as toncenter prints hashes. */
export const hash = base64(32);
/** A BoC in standard base64. */
const boc = base64();
/** Raw address `wc:HEX`, upper case (std addresses have 64 hex digits; addr_var may have others). */
export const address = pattern(/^-?[0-9]{1,10}:[0-9A-F]{1,256}$/, 'a raw address like 0:ABCD…');
/** A shard id as 16 upper-case hex digits. */
export const shard = pattern(/^[0-9A-F]{16}$/, 'a shard as 16 upper-case hex digits');
const opcode = pattern(/^0x[0-9a-f]{8}$/, 'an opcode like 0x0f8a7ea5');
const u64 = decimal(64);
/** Grams and other amounts: VarUInteger 16. */
const amount = decimal(128);
const extraCurrencies = mapOf(/^[0-9]{1,10}$/, amount);

const blockIdShape = { workchain: int32, shard, seqno: uint32 };
const blockId = object(blockIdShape);
const blockRef = object({ ...blockIdShape, root_hash: hash, file_hash: hash, end_lt: u64 });
const currency = object({ grams: amount, other: extraCurrencies });

export const blockRecord: Check = object({
  ...blockIdShape,
  root_hash: hash,
  file_hash: hash,
  mc_block_seqno: nullable(uint32),
  global_id: int32,
  version: uint32,
  after_merge: bool,
  before_split: bool,
  after_split: bool,
  want_merge: bool,
  want_split: bool,
  key_block: bool,
  vert_seqno_incr: bool,
  flags: uint8,
  gen_utime: decimal(32),
  start_lt: u64,
  end_lt: u64,
  validator_list_hash_short: uint32,
  gen_catchain_seqno: uint32,
  min_ref_mc_seqno: uint32,
  prev_key_block_seqno: uint32,
  vert_seqno: uint32,
  master_ref_seqno: uint32,
  rand_seed: hash,
  created_by: hash,
  tx_count: uint32,
  masterchain_block_ref: blockId,
  prev_blocks: arrayOf(blockId, 2),
  prev_refs: arrayOf(blockRef, 2),
  in_msg_descr_length: uint32,
  out_msg_descr_length: uint32,
  value_flow: object({
    from_prev_blk: currency,
    to_next_blk: currency,
    imported: currency,
    exported: currency,
    fees_collected: currency,
    burned: nullable(currency),
    fees_imported: currency,
    recovered: currency,
    created: currency,
    minted: currency,
  }),
  shard_tops: optional(arrayOf(blockId, 4096)),
});

const messageContent = object({ hash, body: boc });

const messageShape = {
  hash,
  source: nullable(address),
  destination: nullable(address),
  value: nullable(u64),
  value_extra_currencies: extraCurrencies,
  fwd_fee: nullable(amount),
  ihr_fee: nullable(amount),
  extra_flags: optional(nullable(amount)),
  import_fee: nullable(amount),
  created_lt: nullable(u64),
  created_at: nullable(decimal(32)),
  opcode: nullable(opcode),
  ihr_disabled: nullable(bool),
  bounce: nullable(bool),
  bounced: nullable(bool),
  message_content: messageContent,
  init_state: nullable(messageContent),
  hash_norm: optional(hash),
};

export const messageRow: Check = object({
  ...messageShape,
  direction: literal('in', 'out'),
  tx_hash: hash,
  tx_lt: u64,
  mc_block_seqno: nullable(uint32),
});

const storageUsed = object({ cells: u64, bits: u64 });

const computePhase = variants('skipped', {
  true: object({ skipped: literal(true), reason: text(64) }),
  false: object({
    skipped: literal(false),
    success: bool,
    msg_state_used: bool,
    account_activated: bool,
    gas_fees: amount,
    gas_used: u64,
    gas_limit: u64,
    gas_credit: nullable(u64),
    mode: int32,
    exit_code: int32,
    exit_arg: nullable(int32),
    vm_steps: uint32,
    vm_init_state_hash: hash,
    vm_final_state_hash: hash,
  }),
});

const actionPhase = object({
  success: bool,
  valid: bool,
  no_funds: bool,
  status_change: text(64),
  total_fwd_fees: nullable(amount),
  total_action_fees: nullable(amount),
  result_code: int32,
  result_arg: nullable(int32),
  tot_actions: uint16,
  spec_actions: uint16,
  skipped_actions: uint16,
  msgs_created: uint16,
  action_list_hash: hash,
  tot_msg_size: storageUsed,
});

const bouncePhase = variants('type', {
  negfunds: object({ type: literal('negfunds') }),
  nofunds: object({ type: literal('nofunds'), msg_size: storageUsed, req_fwd_fees: amount }),
  ok: object({ type: literal('ok'), msg_size: storageUsed, msg_fees: amount, fwd_fees: amount }),
});

const description = object({
  type: literal('ord', 'storage', 'tick_tock', 'split_prepare', 'split_install', 'merge_prepare', 'merge_install'),
  aborted: optional(bool),
  destroyed: optional(bool),
  credit_first: optional(bool),
  is_tock: optional(bool),
  installed: optional(bool),
  storage_ph: optional(object({ storage_fees_collected: amount, storage_fees_due: nullable(amount), status_change: text(64) })),
  credit_ph: optional(object({ due_fees_collected: nullable(amount), credit: amount, credit_extra_currencies: extraCurrencies })),
  compute_ph: optional(computePhase),
  action: optional(actionPhase),
  bounce: optional(bouncePhase),
  split_info: optional(object({ cur_shard_pfx_len: uint8, acc_split_depth: uint8, this_addr: hash, sibling_addr: hash })),
});

/** A message by its hash (a `TransactionRow`'s messages); a full message record also has one. */
const messageRef = object({ hash });

/** Transactions name their messages by hash; at most 255 out messages (the action list's limit). */
export const transactionRow: Check = object({
  account: address,
  hash,
  lt: u64,
  now: uint32,
  mc_block_seqno: nullable(uint32),
  prev_trans_hash: hash,
  prev_trans_lt: u64,
  orig_status: literal('uninit', 'frozen', 'active', 'nonexist'),
  end_status: literal('uninit', 'frozen', 'active', 'nonexist'),
  total_fees: u64,
  total_fees_extra_currencies: extraCurrencies,
  account_state_hash_before: hash,
  account_state_hash_after: hash,
  description,
  block_ref: blockId,
  in_msg: nullable(messageRef),
  out_msgs: arrayOf(messageRef, 255),
  token_events: optional(tokenEvents),
  global_version: optional(nullable(uint32)),
  boc: optional(boc),
});

export const accountStateRecord: Check = object({
  account: address,
  account_state_hash: hash,
  balance: u64,
  extra_currencies: extraCurrencies,
  status: literal('uninit', 'frozen', 'active', 'nonexist'),
  frozen_hash: nullable(hash),
  code_hash: nullable(hash),
  data_hash: nullable(hash),
  code_boc: nullable(boc),
  data_boc: nullable(boc),
  last_trans_lt: u64,
  last_trans_hash: hash,
  mc_block_seqno: nullable(uint32),
  gen_utime: uint32,
  contract: optional(object({ interfaces: arrayOf(pattern(/^[a-z0-9_]{1,64}$/, 'an interface name'), 64), methods: nullable(arrayOf(uint32, 4096)) })),
});
