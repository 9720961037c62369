import type { JsonSchema } from '../http/kinds.js';
import { B, N, nullable, obj, ref, S } from '../http/schema-kit.js';
import { CONTRACT_SCHEMAS } from './contracts/schemas.js';
import { TOKEN_SCHEMAS } from './tokens/schemas.js';

/**
 * Response schemas of the served endpoints (OpenAPI 3.0 components), named as toncenter's OpenAPI
 * names them. Field types follow toncenter-v3.md §3: 64-bit values and `Block.gen_utime` are strings.
 */
const amounts: JsonSchema = { type: 'object', additionalProperties: S, description: 'currency id -> amount (decimal string)' };

export const SCHEMAS: Record<string, JsonSchema> = {
  Error: obj({ error: S, request_id: { ...S, description: 'with 500 and 503: the id under which the server logged the failure' } }, ['request_id']),
  BlockId: obj({ workchain: N, shard: { ...S, description: 'hex, upper case' }, seqno: N }),
  Block: obj({
    workchain: N, shard: S, seqno: N, root_hash: S, file_hash: S,
    global_id: N, version: N, after_merge: B, before_split: B, after_split: B, want_merge: B, want_split: B,
    key_block: B, vert_seqno_incr: B, flags: N,
    gen_utime: { ...S, description: 'unix time as a string' }, start_lt: S, end_lt: S,
    validator_list_hash_short: N, gen_catchain_seqno: N, min_ref_mc_seqno: N, prev_key_block_seqno: N,
    vert_seqno: N, master_ref_seqno: N, rand_seed: S, created_by: S, tx_count: N,
    masterchain_block_ref: ref('BlockId'), prev_blocks: { type: 'array', items: ref('BlockId') },
  }),
  MasterchainInfo: obj({ last: ref('Block'), first: ref('Block') }),
  BlocksResponse: obj({ blocks: { type: 'array', items: ref('Block') } }),
  MessageContent: obj({ hash: S, body: { ...S, description: 'BoC, base64' }, decoded: nullable({ type: 'object' }) }),
  Message: obj({
    hash: S, source: nullable(S), destination: nullable(S), value: nullable(S), value_extra_currencies: amounts,
    fwd_fee: nullable(S), ihr_fee: nullable(S), extra_flags: nullable(S), import_fee: nullable(S), created_lt: nullable(S), created_at: nullable(S),
    opcode: nullable({ ...S, description: '"0x%08x"' }), decoded_opcode: nullable(S),
    ihr_disabled: nullable(B), bounce: nullable(B), bounced: nullable(B),
    message_content: nullable(ref('MessageContent')), init_state: nullable(ref('MessageContent')), hash_norm: S,
    in_msg_tx_hash: { ...S, description: 'only from /messages: the transaction it is the in message of' },
    out_msg_tx_hash: { ...S, description: 'only from /messages: the transaction it is an out message of' },
  }, ['hash_norm', 'in_msg_tx_hash', 'out_msg_tx_hash']),
  TransactionDescr: {
    type: 'object',
    description: 'type, aborted, destroyed, credit_first, is_tock, installed, storage_ph, credit_ph, compute_ph, action, bounce, split_info (toncenter-v3.md §3)',
    properties: { type: { ...S, enum: ['ord', 'storage', 'tick_tock', 'split_prepare', 'split_install', 'merge_prepare', 'merge_install'] } },
    required: ['type'],
    additionalProperties: true,
  },
  AccountState: obj({ hash: S, balance: nullable(S), extra_currencies: nullable(amounts), account_status: nullable(S), frozen_hash: nullable(S), data_hash: nullable(S), code_hash: nullable(S) }),
  Transaction: obj({
    account: S, hash: S, lt: S, now: N, mc_block_seqno: nullable(N), trace_id: nullable(S),
    prev_trans_hash: S, prev_trans_lt: S,
    orig_status: { ...S, enum: ['uninit', 'frozen', 'active', 'nonexist'] }, end_status: { ...S, enum: ['uninit', 'frozen', 'active', 'nonexist'] },
    total_fees: S, total_fees_extra_currencies: amounts, description: ref('TransactionDescr'), block_ref: ref('BlockId'),
    in_msg: nullable(ref('Message')), out_msgs: { type: 'array', items: ref('Message'), description: 'sorted by created_lt' },
    account_state_before: nullable(ref('AccountState')), account_state_after: nullable(ref('AccountState')),
    emulated: B, finality: { ...S, enum: ['pending', 'confirmed', 'finalized'] },
  }, ['trace_id']),
  AddressBookRow: obj({
    user_friendly: nullable(S), domain: nullable(S),
    interfaces: nullable({ type: 'array', items: S, description: 'null when the state has no code or its get-methods name no interface; [] for an address with no indexed state or a code without get-methods to match' }),
  }),
  AddressBook: { type: 'object', additionalProperties: ref('AddressBookRow'), description: 'raw address -> AddressBookRow' },
  TokenInfo: obj(
    { valid: B, type: S, name: S, symbol: S, description: S, image: S, nft_index: S, is_nsfw: B, is_scam: B, extra: { type: 'object' } },
    ['valid', 'type', 'name', 'symbol', 'description', 'image', 'nft_index', 'is_nsfw', 'is_scam', 'extra'],
  ),
  AddressMetadata: obj({ is_indexed: B, token_info: { type: 'array', items: ref('TokenInfo') } }),
  Metadata: { type: 'object', additionalProperties: ref('AddressMetadata'), description: 'raw address -> AddressMetadata (token contracts only)' },
  TransactionsResponse: obj({ transactions: { type: 'array', items: ref('Transaction') }, address_book: ref('AddressBook') }),
  AccountStateFull: obj({
    address: S, account_state_hash: S, balance: S, extra_currencies: amounts, status: { ...S, enum: ['uninit', 'frozen', 'active', 'nonexist'] },
    frozen_hash: S, last_transaction_hash: S, last_transaction_lt: S, data_hash: S, code_hash: S,
    data_boc: { ...S, description: 'BoC, base64; absent with include_boc=false' }, code_boc: { ...S, description: 'BoC, base64; absent with include_boc=false' },
    contract_methods: nullable({ type: 'array', items: N, description: 'get-method ids as the code\'s method dictionary keys them: 19-bit unsigned (recv_external is 524287), ascending' }),
    interfaces: nullable({ type: 'array', items: S, description: '[] when the code has no get-methods to match; null when they name no interface' }),
  }, ['frozen_hash', 'data_hash', 'code_hash', 'data_boc', 'code_boc']),
  AccountStatesResponse: obj({ accounts: { type: 'array', items: ref('AccountStateFull') }, address_book: ref('AddressBook'), metadata: ref('Metadata') }),
  WalletState: obj({
    address: S, is_wallet: B, wallet_type: { ...S, example: 'wallet v4 r2' }, seqno: N, wallet_id: N, balance: S, extra_currencies: amounts,
    is_signature_allowed: { ...B, description: 'wallet v5 r1 only' }, status: S, code_hash: S, last_transaction_hash: nullable(S), last_transaction_lt: nullable(S),
  }, ['wallet_type', 'seqno', 'wallet_id', 'extra_currencies', 'is_signature_allowed', 'code_hash']),
  WalletStatesResponse: obj({ wallets: { type: 'array', items: ref('WalletState') }, address_book: ref('AddressBook'), metadata: ref('Metadata') }),
  AccountBalance: obj({ account: S, balance: S }),
  MessagesResponse: obj({
    messages: { type: 'array', items: ref('Message') },
    address_book: ref('AddressBook'),
    metadata: ref('Metadata'),
  }),
  // Traces and actions (toncenter-v3.md §3 Traces, Action).
  TraceMeta: obj({
    trace_state: { ...S, enum: ['complete', 'pending', 'broken'] }, messages: N, transactions: N, pending_messages: N,
    classification_state: { ...S, enum: ['unclassified', 'failed', 'ok', 'broken'] },
  }),
  TraceNode: obj({ tx_hash: S, in_msg_hash: S, children: nullable({ type: 'array', items: ref('TraceNode') }) }, ['in_msg_hash']),
  Action: obj({
    trace_id: nullable(S), action_id: S, start_lt: S, end_lt: S, start_utime: N, end_utime: N, trace_end_lt: S, trace_end_utime: N, trace_mc_seqno_end: N,
    transactions: { type: 'array', items: S }, success: nullable(B), type: S, details: { type: 'object' },
    trace_external_hash: S, trace_external_hash_norm: S, accounts: { type: 'array', items: S },
    transactions_full: { type: 'array', items: ref('Transaction') }, finality: { ...S, enum: ['pending', 'confirmed', 'finalized'] },
  }, ['trace_external_hash', 'trace_external_hash_norm', 'accounts', 'transactions_full']),
  Trace: obj({
    trace_id: nullable(S), external_hash: nullable(S), mc_seqno_start: S, mc_seqno_end: S, start_lt: S, start_utime: N, end_lt: nullable(S), end_utime: nullable(N),
    trace_info: ref('TraceMeta'), is_incomplete: B, warning: S, actions: { type: 'array', items: ref('Action') }, trace: ref('TraceNode'),
    transactions_order: { type: 'array', items: S }, transactions: { type: 'object', additionalProperties: ref('Transaction'), description: 'tx hash -> Transaction' },
  }, ['warning', 'actions', 'trace', 'transactions_order', 'transactions']),
  TracesResponse: obj({ traces: { type: 'array', items: ref('Trace') }, address_book: ref('AddressBook'), metadata: ref('Metadata') }),
  EventsResponse: obj({ events: { type: 'array', items: ref('Trace') }, address_book: ref('AddressBook'), metadata: ref('Metadata') }),
  ActionsResponse: obj({ actions: { type: 'array', items: ref('Action') }, address_book: ref('AddressBook'), metadata: ref('Metadata') }),
  ...TOKEN_SCHEMAS,
  ...CONTRACT_SCHEMAS,
};

export { ref } from '../http/schema-kit.js';
