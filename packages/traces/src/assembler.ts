import type { MessageRecord, TransactionRecord } from '@tonstream/records';
import { compareTransactions } from './order.js';
import type { AssembledTrace, TraceNodeRecord, TraceRecord } from './trace-record.js';

/** The masterchain's system address: its internal messages (minting, fee recovery) start traces. */
export const SYSTEM_ADDRESS = `-1:${'0'.repeat(64)}`;

/** A trace still being assembled: toncenter's trace meta plus the transactions seen so far. */
export type PendingTrace = {
  trace_id: string;
  external_hash: string | null;
  external_hash_norm: string | null;
  /** The root's inbound internal message has no known sender: it can never complete. */
  broken: boolean;
  mc_seqno_start: number;
  mc_seqno_end: number;
  start_lt: string;
  start_utime: number;
  end_lt: string;
  end_utime: number;
  messages: number;
  /** Hashes of the internal messages sent and not delivered yet (toncenter's pending_edges). */
  open: string[];
  nodes: TraceNodeRecord[];
  transactions: TransactionRecord[];
};

/** A message sent by a known transaction and not delivered yet. */
export type Edge = { trace_id: string; sender: string };

/** The assembler's whole state: what must survive a restart. */
export type AssemblerState = { traces: Map<string, PendingTrace>; edges: Map<string, Edge> };

export function emptyState(): AssemblerState {
  return { traces: new Map(), edges: new Map() };
}

/** What one masterchain block changed, as a delta a durable copy of the state can apply. */
export type BlockResult = {
  /** Traces that completed in the block, and traces given up on (`record.is_incomplete`). */
  finished: AssembledTrace[];
  /** Traces still pending that the block changed or created (to save). */
  changed: PendingTrace[];
  /** Traces that left the state (finished). */
  removed: string[];
  edgesAdded: Map<string, Edge>;
  edgesRemoved: string[];
};

export type AssembleOptions = {
  /**
   * A trace still pending this many masterchain blocks after its first one is published as
   * incomplete and dropped (with its undelivered messages): broken traces never complete, and a
   * message to an account outside the index would keep its trace forever. Default 1000 (mainnet: ~1.5 h).
   */
  incompleteAfterMcBlocks?: number;
  /**
   * The last block this assembler will see (a history lane's end): every trace still pending after it
   * is published as incomplete and dropped.
   */
  last?: boolean;
};

export const DEFAULT_INCOMPLETE_AFTER_MC_BLOCKS = 1000;

const isExternalIn = (m: MessageRecord) => m.source === null;
const ltMax = (a: string, b: string) => (BigInt(a) >= BigInt(b) ? a : b);

/**
 * Feeds one masterchain block to the assembler (reference docs/traces-and-actions.md §1.2-1.5): the
 * transactions of the masterchain block and of every shard block it commits, with their messages.
 * Blocks must come in seqno order. Mutates `state` and returns the delta.
 */
export function assembleMasterchainBlock(state: AssemblerState, mcSeqno: number, transactions: readonly TransactionRecord[], options: AssembleOptions = {}): BlockResult {
  const touched = new Set<string>();
  const edgesAdded = new Map<string, Edge>();
  const edgesRemoved = new Set<string>();
  const sorted = [...transactions].sort(compareTransactions);

  for (const tx of sorted) {
    const trace = join(state, tx, mcSeqno, edgesAdded, edgesRemoved);
    touched.add(trace.trace_id);
    trace.mc_seqno_end = Math.max(trace.mc_seqno_end, mcSeqno);
    trace.end_lt = ltMax(trace.end_lt, tx.lt);
    trace.end_utime = Math.max(trace.end_utime, tx.now);
    for (const out of tx.out_msgs) {
      if (out.destination === null) {
        trace.messages++;
        continue;
      }
      const edge = { trace_id: trace.trace_id, sender: tx.hash };
      state.edges.set(out.hash, edge);
      edgesAdded.set(out.hash, edge);
      edgesRemoved.delete(out.hash);
      trace.open.push(out.hash);
    }
    trace.transactions.push(tx);
  }

  const finished: AssembledTrace[] = [];
  const changed: PendingTrace[] = [];
  const removed: string[] = [];
  const finish = (t: PendingTrace, incomplete: boolean) => {
    state.traces.delete(t.trace_id);
    removed.push(t.trace_id);
    for (const hash of t.open) {
      state.edges.delete(hash);
      if (!edgesAdded.delete(hash)) edgesRemoved.add(hash);
    }
    finished.push({ record: traceRecord(t, incomplete), transactions: t.transactions });
  };
  for (const id of touched) {
    const t = state.traces.get(id)!;
    if (!t.broken && t.open.length === 0) finish(t, false);
    else changed.push(t);
  }
  const bound = options.incompleteAfterMcBlocks ?? DEFAULT_INCOMPLETE_AFTER_MC_BLOCKS;
  for (const t of [...state.traces.values()]) {
    if (options.last || mcSeqno - t.mc_seqno_start >= bound) finish(t, true);
  }
  const gone = new Set(removed);
  return { finished, changed: changed.filter((t) => !gone.has(t.trace_id)), removed, edgesAdded, edgesRemoved: [...edgesRemoved] };
}

/** The trace a transaction belongs to: the one whose message it received, or a new one it roots. */
function join(state: AssemblerState, tx: TransactionRecord, mcSeqno: number, edgesAdded: Map<string, Edge>, edgesRemoved: Set<string>): PendingTrace {
  const inMsg = tx.in_msg;
  const edge = inMsg && !isExternalIn(inMsg) ? state.edges.get(inMsg.hash) : undefined;
  const joined = edge && state.traces.get(edge.trace_id);
  if (inMsg && edge) {
    state.edges.delete(inMsg.hash);
    if (!edgesAdded.delete(inMsg.hash)) edgesRemoved.add(inMsg.hash);
  }
  if (joined && inMsg && edge) {
    const at = joined.open.indexOf(inMsg.hash);
    if (at >= 0) joined.open.splice(at, 1);
    joined.messages++;
    joined.nodes.push(node(tx, edge.sender));
    return joined;
  }
  // A root: no inbound message (tick-tock, split/merge), an external, a system message, or an
  // internal whose sender is unknown (before the index began, or its trace was given up): broken.
  const complete = inMsg === null || isExternalIn(inMsg) || inMsg.source === SYSTEM_ADDRESS;
  const norm = inMsg && isExternalIn(inMsg) && inMsg.hash_norm && inMsg.hash_norm !== inMsg.hash ? inMsg.hash_norm : null;
  const trace: PendingTrace = {
    trace_id: tx.hash,
    external_hash: inMsg?.hash ?? null,
    external_hash_norm: norm,
    broken: !complete,
    mc_seqno_start: mcSeqno,
    mc_seqno_end: mcSeqno,
    start_lt: tx.lt,
    start_utime: tx.now,
    end_lt: tx.lt,
    end_utime: tx.now,
    messages: inMsg !== null && complete ? 1 : 0,
    open: [],
    nodes: [node(tx, null)],
    transactions: [],
  };
  state.traces.set(trace.trace_id, trace);
  return trace;
}

function node(tx: TransactionRecord, parent: string | null): TraceNodeRecord {
  return { tx_hash: tx.hash, account: tx.account, lt: tx.lt, in_msg_hash: tx.in_msg?.hash ?? null, parent, out_msgs: tx.out_msgs.length };
}

/** The published form of a trace. A broken root counts its own inbound message as pending (toncenter). */
export function traceRecord(t: PendingTrace, incomplete: boolean): TraceRecord {
  const pending = t.open.length + (t.broken ? 1 : 0);
  return {
    trace_id: t.trace_id,
    external_hash: t.external_hash,
    external_hash_norm: t.external_hash_norm,
    mc_seqno_start: t.mc_seqno_start,
    mc_seqno_end: t.mc_seqno_end,
    start_lt: t.start_lt,
    start_utime: t.start_utime,
    end_lt: t.end_lt,
    end_utime: t.end_utime,
    trace_info: {
      trace_state: t.broken ? 'broken' : pending === 0 ? 'complete' : 'pending',
      messages: t.messages,
      transactions: t.nodes.length,
      pending_messages: pending,
      classification_state: 'unclassified',
    },
    is_incomplete: incomplete,
    nodes: t.nodes,
  };
}
