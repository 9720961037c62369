import { type MessageRow, type TransactionRecord, type TransactionRow, transactionRow } from '@tonstream/records';
import type { EmulationOutcome } from './emulate-trace.js';
import type { DetectedInterfaces } from './interfaces.js';

/** toncenter's finality: emulated only, in a signed shard block, committed by the masterchain. */
export type Finality = 'pending' | 'confirmed' | 'finalized';

/** What an emulated object carries besides its record: the fields clients match it with. */
export type PendingMarks = {
  /** Unknown until the root transaction is in a block: the confirmed trace's id is its root tx hash. */
  trace_id: null;
  trace_external_hash: string;
  /** TEP-467 hash of the external: the key of the pending trace and the confirmed trace's `external_hash_norm`. */
  trace_external_hash_norm: string;
  emulated: true;
  finality: Finality;
};

export type PendingTransaction = TransactionRecord & PendingMarks;

/** One transaction of a pending trace, enough to draw the tree (as the confirmed trace lists its nodes). */
export type PendingTraceNode = { tx_hash: string; account: string; lt: string; in_msg_hash: string | null; parent: string | null; out_msgs: number };

/** A pending trace: toncenter's `Trace` fields plus the nodes, keyed by `external_hash_norm`. */
export type PendingTrace = {
  trace_id: null;
  external_hash: string;
  external_hash_norm: string;
  mc_seqno_start: number;
  mc_seqno_end: number;
  start_lt: string;
  start_utime: number;
  end_lt: string;
  end_utime: number;
  trace_info: { trace_state: 'pending'; messages: number; transactions: number; pending_messages: number; classification_state: 'unclassified' | 'ok' | 'failed' | 'broken' };
  /** Emulation stopped at a limit (toncenter's `depth_limit_exceeded`). */
  is_incomplete: boolean;
  /** The masterchain block the emulation ran on. */
  emulated_on_mc_seqno: number;
  emulated_at_ms: number;
  nodes: PendingTraceNode[];
  /** Interfaces detected on the states after the trace (Jetton wallets), by raw address. */
  interfaces: Record<string, DetectedInterfaces>;
};

export type PendingTraceResult = { trace: PendingTrace; transactions: PendingTransaction[] };

type Emulated = Extract<EmulationOutcome, { kind: 'emulated' }>;

const big = (s: string) => BigInt(s);
const maxOf = (xs: bigint[]) => xs.reduce((a, b) => (b > a ? b : a));

/**
 * The pending trace of an emulation. Counters as toncenter's pending read path computes them
 * (docs/traces-and-actions.md §5.6): `messages` = the external + every out message of every node,
 * `pending_messages` = the out messages of emulated nodes (all of them here).
 */
export function pendingTrace(outcome: Emulated, atMs = Date.now()): PendingTraceResult {
  const { external, head } = outcome;
  const marks: PendingMarks = { trace_id: null, trace_external_hash: external.hash, trace_external_hash_norm: external.hash_norm, emulated: true, finality: 'pending' };
  const txs = outcome.transactions.map((t) => t.record);
  const outCount = txs.reduce((n, t) => n + t.out_msgs.length, 0);
  const root = txs[0];
  const trace: PendingTrace = {
    trace_id: null,
    external_hash: external.hash,
    external_hash_norm: external.hash_norm,
    mc_seqno_start: root.mc_block_seqno ?? head.seqno + 1,
    mc_seqno_end: Math.max(...txs.map((t) => t.mc_block_seqno ?? head.seqno + 1)),
    start_lt: root.lt,
    start_utime: root.now,
    end_lt: maxOf(txs.map((t) => big(t.lt))).toString(),
    end_utime: Math.max(...txs.map((t) => t.now)),
    trace_info: { trace_state: 'pending', messages: 1 + outCount, transactions: txs.length, pending_messages: outCount, classification_state: 'unclassified' },
    is_incomplete: outcome.limitExceeded,
    emulated_on_mc_seqno: head.seqno,
    emulated_at_ms: atMs,
    nodes: outcome.transactions.map((t) => ({ tx_hash: t.record.hash, account: t.record.account, lt: t.record.lt, in_msg_hash: t.record.in_msg?.hash ?? null, parent: t.parent, out_msgs: t.record.out_msgs.length })),
    interfaces: outcome.interfaces,
  };
  return { trace, transactions: txs.map((t) => ({ ...t, ...marks })) };
}

/** The pipeline's row forms (`TransactionRow`, `MessageRow`) of a pending trace, each with the pending marks. */
export function pendingRows(result: PendingTraceResult): { transactions: (TransactionRow & PendingMarks)[]; messages: (MessageRow & PendingMarks)[] } {
  const transactions: (TransactionRow & PendingMarks)[] = [];
  const messages: (MessageRow & PendingMarks)[] = [];
  for (const t of result.transactions) {
    const { trace_id, trace_external_hash, trace_external_hash_norm, emulated, finality } = t;
    const marks: PendingMarks = { trace_id, trace_external_hash, trace_external_hash_norm, emulated, finality };
    transactions.push({ ...transactionRow(t), ...marks });
    const row = { tx_hash: t.hash, tx_lt: t.lt, mc_block_seqno: t.mc_block_seqno };
    if (t.in_msg) messages.push({ ...t.in_msg, direction: 'in', ...row, ...marks });
    for (const m of t.out_msgs) messages.push({ ...m, direction: 'out', ...row, ...marks });
  }
  return { transactions, messages };
}
