import type { TransactionRecord } from '@tonstream/records';

/** toncenter's `trace_state`: complete once no message of the trace waits for delivery. */
export type TraceState = 'complete' | 'pending' | 'broken';
export type ClassificationState = 'unclassified' | 'failed' | 'ok' | 'broken';

/** toncenter's `TraceMeta` (reference docs/traces-and-actions.md §1.6). */
export type TraceInfo = {
  trace_state: TraceState;
  /** Completed edges: the root's external/system inbound message, delivered internals, external-outs. */
  messages: number;
  transactions: number;
  /** Internal messages emitted and not consumed yet. */
  pending_messages: number;
  classification_state: ClassificationState;
};

/** One transaction of a trace as the trace record lists it: enough to draw the tree. */
export type TraceNodeRecord = {
  tx_hash: string;
  account: string;
  lt: string;
  in_msg_hash: string | null;
  /** The transaction that sent `in_msg`; null for the root (and for a node whose sender is unknown). */
  parent: string | null;
  /** How many messages the transaction sent (the tree shows `children: null` for a sender without delivered children). */
  out_msgs: number;
};

/**
 * A trace as `ton.traces` carries it and the store keeps it (key: trace_id). Published once complete,
 * or as incomplete when it did not complete within the tracer's bound; a later version of a trace
 * (more transactions) has a larger `end_lt`.
 */
export type TraceRecord = {
  trace_id: string;
  external_hash: string | null;
  /** TEP-467 hash of the root external, null when it equals external_hash or the root is not external. */
  external_hash_norm: string | null;
  mc_seqno_start: number;
  mc_seqno_end: number;
  start_lt: string;
  start_utime: number;
  end_lt: string;
  end_utime: number;
  trace_info: TraceInfo;
  is_incomplete: boolean;
  /** Ordered by (lt, workchain, account) as the assembler saw them. */
  nodes: TraceNodeRecord[];
};

/**
 * An action as `ton.actions` carries it (one bundle per trace, key: trace_id) and the store keeps it:
 * the public `/api/v3/actions` form with `accounts`, plus the hierarchy fields. The classifier owns
 * `details`; the store only relies on the fields named here.
 */
export type ActionRecord = {
  action_id: string;
  trace_id: string;
  type: string;
  success: boolean | null;
  start_lt: string;
  end_lt: string;
  start_utime: number;
  end_utime: number;
  trace_end_lt: string;
  trace_end_utime: number;
  trace_mc_seqno_end: number;
  transactions: string[];
  accounts: string[];
  details: unknown;
  trace_external_hash?: string | null;
  trace_external_hash_norm?: string | null;
  parent_action_id?: string | null;
  ancestor_type?: string[];
  [field: string]: unknown;
};

/** A trace whose assembly is done (complete, or given up on): its record and every transaction in full. */
export type AssembledTrace = { record: TraceRecord; transactions: TransactionRecord[] };
