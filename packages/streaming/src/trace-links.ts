import type { TransactionRecord } from '@tonstream/records';

/** The trace a transaction belongs to: its root transaction and the root external's normalized hash. */
export type TraceRef = { norm: string; rootTx: string };

/**
 * Which trace each transaction belongs to, followed across masterchain blocks: an external-in message
 * starts a trace (keyed by its TEP-467 hash, as toncenter keys streamed traces); a transaction whose
 * in message was sent by a transaction of a known trace joins it. Transactions reached by neither
 * (tick-tock, system-rooted, a chain that began before this process saw it) have no trace and, as in
 * toncenter (reference §7), are not streamed. Undelivered messages are forgotten after
 * `maxAgeMcBlocks`, which bounds memory.
 */
export function createTraceLinks(maxAgeMcBlocks: number) {
  const waiting = new Map<string, TraceRef & { mc: number }>();
  /** Undelivered messages per trace: a trace none of whose messages waits is complete (as the tracer defines it). */
  const open = new Map<string, number>();
  let completed = new Map<string, string>();
  const bump = (norm: string, by: number) => open.set(norm, (open.get(norm) ?? 0) + by);

  return {
    /** Assigns traces to one masterchain block's transactions (any order); returns tx hash -> trace. */
    assign(mcSeqno: number, transactions: TransactionRecord[]): Map<string, TraceRef> {
      const out = new Map<string, TraceRef>();
      // A receiver's lt is above its in message's created_lt, which is above the sender's lt: lt order puts senders first.
      const ordered = [...transactions].sort((a, b) => cmpLt(a.lt, b.lt) || a.account.localeCompare(b.account));
      const touched = new Map<string, string>();
      for (const tx of ordered) {
        const inMsg = tx.in_msg;
        if (!inMsg) continue;
        let ref: TraceRef | undefined;
        if (inMsg.source === null) ref = { norm: inMsg.hash_norm ?? inMsg.hash, rootTx: tx.hash };
        else {
          const w = waiting.get(inMsg.hash);
          if (w) {
            waiting.delete(inMsg.hash);
            bump(w.norm, -1);
            ref = { norm: w.norm, rootTx: w.rootTx };
          }
        }
        if (!ref) continue;
        out.set(tx.hash, ref);
        touched.set(ref.norm, ref.rootTx);
        bump(ref.norm, 0);
        for (const m of tx.out_msgs) {
          if (m.destination === null) continue;
          waiting.set(m.hash, { ...ref, mc: mcSeqno });
          bump(ref.norm, 1);
        }
      }
      for (const [hash, w] of waiting) {
        if (w.mc >= mcSeqno - maxAgeMcBlocks) continue;
        waiting.delete(hash);
        bump(w.norm, -1);
        // A trace given up on never completes here (the tracer publishes it as incomplete).
        touched.delete(w.norm);
        if ((open.get(w.norm) ?? 0) <= 0) open.delete(w.norm);
      }
      completed = new Map();
      for (const [norm, rootTx] of touched) {
        if ((open.get(norm) ?? 0) > 0) continue;
        open.delete(norm);
        completed.set(norm, rootTx);
      }
      return out;
    },
    /** The traces (normalized hash -> root tx) the last `assign` completed: no message of theirs waits any more. */
    get completed(): ReadonlyMap<string, string> {
      return completed;
    },
    get size() {
      return waiting.size;
    },
  };
}

export type TraceLinks = ReturnType<typeof createTraceLinks>;

export function cmpLt(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
