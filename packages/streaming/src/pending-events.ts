import type { TransactionRecord } from '@tonstream/records';
import type { ActionRecord } from '@tonstream/traces';
import { transactionsEvent, traceEvents, type BlockEvent, type EventTx, type TraceNode } from './events.js';

/**
 * A value of `ton.pending_traces` (the emulator's, key: the external's hash_norm): a pending trace as
 * it was stored in Redis, or the news that one was invalidated (expired without being confirmed).
 */
export type PendingTraceMessage =
  | { kind: 'stored'; hashNorm: string; externalHash: string; nodes: TraceNode[]; transactions: TransactionRecord[]; actions: ActionRecord[] }
  | { kind: 'invalidated'; hashNorm: string; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads one topic value; throws an Error naming what is wrong (the caller counts and logs it). */
export function decodePendingTraceMessage(value: Buffer | string): PendingTraceMessage {
  const v: unknown = JSON.parse(value.toString());
  if (!isObject(v)) throw new Error('pending trace message: expected a JSON object');
  if (v.kind === 'invalidated') {
    if (typeof v.hash_norm !== 'string') throw new Error('pending trace message: hash_norm: expected a string');
    return { kind: 'invalidated', hashNorm: v.hash_norm, reason: typeof v.reason === 'string' ? v.reason : 'invalidated' };
  }
  if (v.kind !== 'stored') throw new Error(`pending trace message: unknown kind ${JSON.stringify(v.kind)?.slice(0, 40)}`);
  const trace = v.trace;
  if (!isObject(trace) || typeof trace.external_hash_norm !== 'string' || typeof trace.external_hash !== 'string' || !Array.isArray(trace.nodes)) throw new Error('pending trace message: trace: expected external_hash, external_hash_norm and nodes');
  if (!Array.isArray(v.transactions) || !v.transactions.every((t) => isObject(t) && typeof t.hash === 'string' && typeof t.account === 'string' && typeof t.lt === 'string' && Array.isArray(t.out_msgs))) throw new Error('pending trace message: transactions: expected transaction records');
  if (!Array.isArray(v.actions) || !v.actions.every((a) => isObject(a) && typeof a.type === 'string' && Array.isArray(a.accounts))) throw new Error('pending trace message: actions: expected action records');
  return {
    kind: 'stored',
    hashNorm: trace.external_hash_norm,
    externalHash: trace.external_hash,
    nodes: trace.nodes as TraceNode[],
    transactions: v.transactions as TransactionRecord[],
    actions: v.actions as ActionRecord[],
  };
}

/**
 * The `pending` events of an emulated trace, in toncenter's order (§7): its `transactions` (every one
 * emulated), then `actions`, then `trace`. No `trace_id` anywhere: the root is not real yet.
 */
export function pendingEvents(m: Extract<PendingTraceMessage, { kind: 'stored' }>): BlockEvent[] {
  const txs: EventTx[] = m.transactions.map((record) => ({ account: record.account, lt: record.lt, record, traceId: null, json: {} }));
  // trace_id is null while the root is emulated (§6.2); the record type says string for stored actions.
  const actions = m.actions.map((a) => ({ ...a, trace_id: null as unknown as string, trace_external_hash: m.externalHash }));
  return [transactionsEvent(m.hashNorm, [...txs]), ...traceEvents(m.hashNorm, m.externalHash, m.nodes, txs, actions)];
}
