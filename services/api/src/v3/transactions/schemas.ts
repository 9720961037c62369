import { arr, B, component, type JsonSchema, more, N, nullable, obj, oneOf, OPEN, ref, S, type Schema } from '../../http/schema-kit.js';
import { BlockId } from '../blocks/schemas.js';
import { AddressBook, amounts, Metadata } from '../schemas.js';

/** Response schemas of the transaction and message endpoints (docs/toncenter-v3.md §3 Transaction, Message). */

export const MessageContent = component('MessageContent', obj({ hash: S, body: more(S, { description: 'BoC, base64' }), decoded: nullable(OPEN) }));
export const Message = component('Message', obj({
  hash: S, source: nullable(S), destination: nullable(S), value: nullable(S), value_extra_currencies: amounts,
  fwd_fee: nullable(S), ihr_fee: nullable(S), extra_flags: nullable(S), import_fee: nullable(S), created_lt: nullable(S), created_at: nullable(S),
  opcode: nullable(more(S, { description: '"0x%08x"' })), decoded_opcode: nullable(S),
  ihr_disabled: nullable(B), bounce: nullable(B), bounced: nullable(B),
  message_content: nullable(ref(MessageContent)), init_state: nullable(ref(MessageContent)), hash_norm: S,
  in_msg_tx_hash: more(S, { description: 'only from /messages: the transaction it is the in message of' }),
  out_msg_tx_hash: more(S, { description: 'only from /messages: the transaction it is an out message of' }),
}, ['hash_norm', 'in_msg_tx_hash', 'out_msg_tx_hash']));

const TRANSACTION_TYPES = ['ord', 'storage', 'tick_tock', 'split_prepare', 'split_install', 'merge_prepare', 'merge_install'] as const;
const descr: JsonSchema = {
  type: 'object',
  description: 'type, aborted, destroyed, credit_first, is_tock, installed, storage_ph, credit_ph, compute_ph, action, bounce, split_info (docs/toncenter-v3.md §3)',
  properties: { type: oneOf(TRANSACTION_TYPES) },
  required: ['type'],
  additionalProperties: true,
};
export const TransactionDescr = component('TransactionDescr', descr as Schema<{ type: string }>);

const ACCOUNT_STATUSES = ['uninit', 'frozen', 'active', 'nonexist'] as const;
export const AccountState = component('AccountState', obj({ hash: S, balance: nullable(S), extra_currencies: nullable(amounts), account_status: nullable(S), frozen_hash: nullable(S), data_hash: nullable(S), code_hash: nullable(S) }));
export const Transaction = component('Transaction', obj({
  account: S, hash: S, lt: S, now: N, mc_block_seqno: nullable(N), trace_id: nullable(S),
  trace_external_hash: { ...S, description: 'only for an emulated (pending) transaction: the hash of its trace\'s external message' },
  prev_trans_hash: S, prev_trans_lt: S,
  orig_status: oneOf(ACCOUNT_STATUSES), end_status: oneOf(ACCOUNT_STATUSES),
  total_fees: S, total_fees_extra_currencies: amounts, description: ref(TransactionDescr), block_ref: ref(BlockId),
  in_msg: nullable(ref(Message)), out_msgs: arr(ref(Message), { description: 'sorted by created_lt' }),
  account_state_before: nullable(ref(AccountState)), account_state_after: nullable(ref(AccountState)),
  emulated: B, finality: oneOf(['pending', 'confirmed', 'finalized']),
}, ['trace_id', 'trace_external_hash']));
export const TransactionsResponse = component('TransactionsResponse', obj({ transactions: arr(ref(Transaction)), address_book: ref(AddressBook) }));
export const MessagesResponse = component('MessagesResponse', obj({ messages: arr(ref(Message)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
