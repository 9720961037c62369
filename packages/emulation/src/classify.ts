import type { TransactionRecord } from '@tonstream/records';
import type { PendingTraceResult } from './pending-trace.js';

/** What a classifier reads of a trace (the shape of @tonstream/actions' `ClassifierTrace`). */
export type ClassifierInput = {
  trace_id: string;
  external_hash: string | null;
  external_hash_norm: string | null;
  end_lt: string;
  end_utime: number;
  mc_seqno_end: number;
  transactions: TransactionRecord[];
};

/** An action as a classifier returns it: v3 `Action` fields, `accounts` included. */
export type ClassifiedAction = {
  action_id: string;
  type: string;
  start_lt: string;
  accounts: string[];
  trace_id: string | null;
  [field: string]: unknown;
};

/** Known interfaces of a contract by raw address (the shape of @tonstream/actions' `InterfaceLookup`). */
export type InterfaceLookup = (address: string) => Record<string, unknown> | undefined;

/** The action classifier behind a narrow interface, so emulation does not depend on its package. */
export type TraceClassifier = (trace: ClassifierInput, lookup: InterfaceLookup) => { actions: ClassifiedAction[]; state: 'ok' | 'broken' | 'failed' };

export type PendingAction = ClassifiedAction & { trace_id: null; trace_external_hash: string; trace_external_hash_norm: string; finality: 'pending' };

/**
 * Classifies a pending trace as toncenter's pending classifier does (docs/traces-and-actions.md §5.5): the
 * trace key stands in for the trace id while classifying, interfaces are those detected on the
 * emulated states, then every action gets `trace_id = null`,
 * the external's raw and normalized hashes, and finality `pending`. Sets the trace's
 * `classification_state`; a classifier that throws leaves it `failed` with no actions.
 */
export function classifyPending(result: PendingTraceResult, classify: TraceClassifier): PendingAction[] {
  const { trace } = result;
  let classified;
  try {
    classified = classify({
      trace_id: trace.external_hash_norm,
      external_hash: trace.external_hash,
      external_hash_norm: trace.external_hash_norm,
      end_lt: trace.end_lt,
      end_utime: trace.end_utime,
      mc_seqno_end: trace.mc_seqno_end,
      transactions: result.transactions,
    }, (address) => trace.interfaces[address]);
  } catch {
    trace.trace_info.classification_state = 'failed';
    return [];
  }
  trace.trace_info.classification_state = classified.state;
  return classified.actions.map((a) => ({ ...a, trace_id: null, trace_external_hash: trace.external_hash, trace_external_hash_norm: trace.external_hash_norm, finality: 'pending' }));
}
