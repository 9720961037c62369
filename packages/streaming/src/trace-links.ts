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

  return {
    /** Assigns traces to one masterchain block's transactions (any order); returns tx hash -> trace. */
    assign(mcSeqno: number, transactions: TransactionRecord[]): Map<string, TraceRef> {
      const out = new Map<string, TraceRef>();
      // A receiver's lt is above its in message's created_lt, which is above the sender's lt: lt order puts senders first.
      const ordered = [...transactions].sort((a, b) => cmpLt(a.lt, b.lt) || a.account.localeCompare(b.account));
      for (const tx of ordered) {
        const inMsg = tx.in_msg;
        if (!inMsg) continue;
        let ref: TraceRef | undefined;
        if (inMsg.source === null) ref = { norm: inMsg.hash_norm ?? inMsg.hash, rootTx: tx.hash };
        else {
          const w = waiting.get(inMsg.hash);
          if (w) {
            waiting.delete(inMsg.hash);
            ref = { norm: w.norm, rootTx: w.rootTx };
          }
        }
        if (!ref) continue;
        out.set(tx.hash, ref);
        for (const m of tx.out_msgs) if (m.destination !== null) waiting.set(m.hash, { ...ref, mc: mcSeqno });
      }
      for (const [hash, w] of waiting) if (w.mc < mcSeqno - maxAgeMcBlocks) waiting.delete(hash);
      return out;
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
