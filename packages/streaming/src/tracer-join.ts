import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { traceEvents, type BlockEvent, type EventTx } from './events.js';

type Entry = { trace?: TraceRecord; actions?: ActionRecord[]; seenAtMc: number };

/**
 * Joins the tracer's output (`ton.traces`, `ton.actions`, keyed by trace id = root transaction hash)
 * with the traces the streamer followed itself: a masterchain block's `actions` and `trace` events are
 * those of the traces it completed, so they take a fixed place in that block's events once the
 * tracer's records for them are here. Transactions of open traces are kept until then (a trace event
 * lists them all). Everything is forgotten after `maxAgeMcBlocks`.
 */
export function createTracerJoin(maxAgeMcBlocks: number) {
  const byTraceId = new Map<string, Entry>();
  const txsByNorm = new Map<string, { txs: EventTx[]; mc: number }>();
  let newestMc = 0;

  const entry = (traceId: string) => {
    let e = byTraceId.get(traceId);
    if (!e) byTraceId.set(traceId, (e = { seenAtMc: newestMc }));
    return e;
  };

  return {
    /** A trace record of the tracer (a later version, larger `end_lt`, replaces an earlier one). */
    addTrace(t: TraceRecord): void {
      const e = entry(t.trace_id);
      if (!e.trace || BigInt(t.end_lt) >= BigInt(e.trace.end_lt)) e.trace = t;
    },
    addActions(traceId: string, actions: ActionRecord[]): void {
      entry(traceId).actions = actions;
    },
    /** One block's transactions of followed traces (events of the block, by trace). */
    addTransactions(mc: number, byNorm: Iterable<[string, EventTx[]]>): void {
      newestMc = Math.max(newestMc, mc);
      for (const [norm, txs] of byNorm) {
        const held = txsByNorm.get(norm) ?? { txs: [], mc };
        held.txs.push(...txs);
        held.mc = mc;
        txsByNorm.set(norm, held);
      }
    },
    /**
     * Whether the tracer's records of every completed trace (root tx hashes) are here: the trace, and
     * its actions unless the trace says it was not classified (the tracer then publishes none).
     */
    ready(completed: ReadonlyMap<string, string>): boolean {
      for (const rootTx of completed.values()) {
        const e = byTraceId.get(rootTx);
        if (!e?.trace) return false;
        const classified = e.trace.trace_info.classification_state === 'ok' || e.trace.trace_info.classification_state === 'broken';
        if (classified && !e.actions) return false;
      }
      return true;
    },
    /** The `actions` and `trace` events of the completed traces (in the order given) whose tracer records are here; forgets them. */
    take(completed: ReadonlyMap<string, string>): BlockEvent[] {
      const out: BlockEvent[] = [];
      for (const [norm, rootTx] of completed) {
        const e = byTraceId.get(rootTx);
        const held = txsByNorm.get(norm);
        txsByNorm.delete(norm);
        if (!e?.trace) continue;
        byTraceId.delete(rootTx);
        const txs = held?.txs ?? [];
        const nodes = e.trace.nodes.map((n) => ({ tx_hash: n.tx_hash, in_msg_hash: n.in_msg_hash, parent: n.parent, out_msgs: n.out_msgs }));
        const actions = (e.actions ?? []).map((a) => ({ ...a, trace_external_hash: a.trace_external_hash ?? e.trace!.external_hash }));
        out.push(...traceEvents(norm, e.trace.external_hash, nodes, txs, actions));
      }
      return out;
    },
    /** Drops what is older than the bound (traces this streamer did not follow, given-up ones). */
    expire(mc: number): void {
      for (const [id, e] of byTraceId) if (e.seenAtMc < mc - maxAgeMcBlocks) byTraceId.delete(id);
      for (const [norm, held] of txsByNorm) if (held.mc < mc - maxAgeMcBlocks) txsByNorm.delete(norm);
    },
    get size() {
      return { traces: byTraceId.size, openTraces: txsByNorm.size };
    },
  };
}

export type TracerJoin = ReturnType<typeof createTracerJoin>;
