import { arr, B, component, dict, N, nullable, obj, oneOf, OPEN, ref, S } from '../../http/schema-kit.js';
import { AddressBook, Metadata } from '../schemas.js';
import { Transaction } from '../transactions/schemas.js';

/** Response schemas of traces and actions (docs/toncenter-v3.md §3 Traces, Action). */

export const TraceMeta = component('TraceMeta', obj({
  trace_state: oneOf(['complete', 'pending', 'broken']), messages: N, transactions: N, pending_messages: N,
  classification_state: oneOf(['unclassified', 'failed', 'ok', 'broken']),
}));
/** A node of the trace tree: its transaction and the nodes of the transactions its out messages made. */
export type TraceNodeObject = { tx_hash: string; in_msg_hash?: string; children: TraceNodeObject[] | null };
export const TraceNode = component<TraceNodeObject>('TraceNode', obj({ tx_hash: S, in_msg_hash: S, children: nullable(arr(ref<TraceNodeObject>('TraceNode'))) }, ['in_msg_hash']));
export const Action = component('Action', obj({
  trace_id: nullable(S), action_id: S, start_lt: S, end_lt: S, start_utime: N, end_utime: N, trace_end_lt: S, trace_end_utime: N, trace_mc_seqno_end: N,
  transactions: arr(S), success: nullable(B), type: S, details: OPEN,
  trace_external_hash: S, trace_external_hash_norm: S, accounts: arr(S),
  transactions_full: arr(ref(Transaction)), finality: oneOf(['pending', 'confirmed', 'finalized']),
}, ['trace_external_hash', 'trace_external_hash_norm', 'accounts', 'transactions_full']));
export const Trace = component('Trace', obj({
  trace_id: nullable(S), external_hash: nullable(S), mc_seqno_start: S, mc_seqno_end: S, start_lt: S, start_utime: N, end_lt: nullable(S), end_utime: nullable(N),
  trace_info: ref(TraceMeta), is_incomplete: B, warning: S, actions: arr(ref(Action)), trace: ref(TraceNode),
  transactions_order: arr(S), transactions: dict(ref(Transaction), { description: 'tx hash -> Transaction' }),
}, ['warning', 'actions', 'trace', 'transactions_order', 'transactions']));
export const TracesResponse = component('TracesResponse', obj({ traces: arr(ref(Trace)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
export const EventsResponse = component('EventsResponse', obj({ events: arr(ref(Trace)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
export const ActionsResponse = component('ActionsResponse', obj({ actions: arr(ref(Action)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
