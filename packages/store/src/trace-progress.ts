/**
 * How far traces and actions are stored: the tracer's batch receipts and the traces watermark.
 *
 * The tracer publishes a masterchain block's traces and actions (keyed by trace, so spread over the
 * partitions of two topics), then a mark of the batch: which seqnos it covers and how many trace and
 * action records it published (@tonstream/traces TraceBatch). The writer stores every record as it
 * arrives and, after its rows, a receipt per consumed message: per trace message and per actions
 * message (keyed by the trace, so a replayed message collapses onto its first receipt) and per mark.
 * The traces watermark is the highest masterchain seqno N such that every batch up to N has all the
 * records its mark announces stored (a dead-lettered record counts as stored: it will never come, and
 * holding every later trace for it would hide them all). Reads of traces and actions serve only what
 * ended at or below both this and the index watermark, so a trace and its actions are served together.
 */
import type { Store } from './client.js';
import type { Watermark } from './index-progress.js';
import { uint } from './sql.js';

export type TraceReceiptKind = 'batch' | 'traces' | 'actions';

/** What one consumed message of the tracer left in the store. */
export type TraceReceipt = {
  /** The batch: the masterchain seqno the tracer published the message for. */
  mc_seqno: number;
  kind: TraceReceiptKind;
  /** The trace of a traces or actions message (its key); '' for a batch mark. */
  trace_id: string;
  records: number;
  dead: number;
  /** Batch marks only, else 0: the mark. */
  first_mc_seqno: number;
  expect_traces: number;
  expect_actions: number;
  /** When the writer stored it (ms): the newest receipt of a message wins. */
  written_ms: number;
};

export type TracesWatermark = { mc_seqno: number };

/** A marked batch as its receipts describe it (deduplicated). Stored counts include dead-lettered records. */
export type TraceBatchProgress = {
  mc_seqno: number;
  /** Undefined until the batch's mark is stored. */
  mark?: { first_mc_seqno: number; traces: number; actions: number };
  stored: { traces: number; actions: number };
  dead: number;
};

export type TraceAdvance = { watermark: TracesWatermark | null; waiting: string | null; stuck: false };

/**
 * Moves the traces watermark over every complete batch that follows it (pure). A batch follows the
 * watermark when its mark's range reaches the seqno after it: `first_mc_seqno` 0 (a tracer that began
 * without state) reaches any. `current` null: the first batch counted is the one at `start`.
 */
export function advanceTracesWatermark(current: TracesWatermark | null, start: number, batches: readonly TraceBatchProgress[]): TraceAdvance {
  let watermark = current;
  const marked = batches.filter((b) => b.mark && b.mc_seqno >= (current ? current.mc_seqno + 1 : start)).sort((a, b) => a.mc_seqno - b.mc_seqno);
  for (const b of marked) {
    const next = watermark ? watermark.mc_seqno + 1 : start;
    const m = b.mark!;
    if (watermark && m.first_mc_seqno > next) return { watermark, waiting: `masterchain block ${next}: no trace batch mark stored yet`, stuck: false };
    if (b.stored.traces < m.traces || b.stored.actions < m.actions) {
      const dead = b.dead > 0 ? ` (${b.dead} of its records are in the dead-letter topic)` : '';
      return { watermark, waiting: `trace batch ${b.mc_seqno}: ${b.stored.traces} of ${m.traces} traces and ${b.stored.actions} of ${m.actions} actions stored${dead}`, stuck: false };
    }
    watermark = { mc_seqno: b.mc_seqno };
  }
  return { watermark, waiting: null, stuck: false };
}

export async function readTracesWatermark(store: Store): Promise<TracesWatermark | null> {
  const rows = await store.query<{ mc_seqno: number }>(`SELECT mc_seqno FROM ${store.database}.trace_watermark ORDER BY mc_seqno DESC LIMIT 1`);
  return rows.length === 0 ? null : { mc_seqno: Number(rows[0].mc_seqno) };
}

export async function saveTracesWatermark(store: Store, w: TracesWatermark): Promise<void> {
  await store.insert('trace_watermark', [{ mc_seqno: w.mc_seqno, updated_at: Math.floor(Date.now() / 1000) }]);
}

/**
 * Where the traces watermark begins: the first batch of a tracer that began without state, else (a
 * tracer that published before batches were marked) the lowest seqno a stored mark covers; null
 * before any mark.
 */
export async function tracesStart(store: Store): Promise<number | null> {
  const rows = await store.query<{ fresh: number; lowest: number; found: number }>(
    `SELECT minIf(mc_seqno, first_mc_seqno = 0) AS fresh, min(first_mc_seqno) AS lowest, count() > 0 AS found
     FROM ${store.database}.trace_receipts WHERE kind = 'batch'`,
  );
  if (rows.length === 0 || Number(rows[0].found) === 0) return null;
  return Number(rows[0].lowest) === 0 ? Number(rows[0].fresh) : Number(rows[0].lowest);
}

/** The next `batches` marked batches above `after` (however far apart), receipts deduplicated. */
export async function readTraceProgress(store: Store, after: number, batches: number): Promise<TraceBatchProgress[]> {
  const db = store.database;
  const next = `SELECT mc_seqno FROM ${db}.trace_receipts WHERE kind = 'batch' AND mc_seqno >= ${uint(after + 1)} GROUP BY mc_seqno ORDER BY mc_seqno LIMIT ${uint(batches)}`;
  // Replays write a receipt again: the newest per (batch, kind, trace) counts. (Inner aliases differ
  // from the outer ones: 18.16 resolves a name to the outer query's alias first.)
  const rows = await store.query<{ mc_seqno: number; marks: string; first: number; e_tr: number; e_ac: number; tr: string; ac: string; dead: string }>(
    `SELECT mc_seqno, sumIf(r, kind = 'batch') AS marks, max(f) AS first, max(etr) AS e_tr, max(eac) AS e_ac,
       sumIf(r + d, kind = 'traces') AS tr, sumIf(r + d, kind = 'actions') AS ac, sum(d) AS dead
     FROM (
       SELECT mc_seqno, kind, trace_id, argMax(records, written_ms) AS r, argMax(dead, written_ms) AS d,
         argMax(first_mc_seqno, written_ms) AS f, argMax(expect_traces, written_ms) AS etr, argMax(expect_actions, written_ms) AS eac
       FROM ${db}.trace_receipts WHERE mc_seqno IN (${next})
       GROUP BY mc_seqno, kind, trace_id
     )
     GROUP BY mc_seqno`,
  );
  return rows.map((r) => ({
    mc_seqno: Number(r.mc_seqno),
    mark: Number(r.marks) > 0 ? { first_mc_seqno: Number(r.first), traces: Number(r.e_tr), actions: Number(r.e_ac) } : undefined,
    stored: { traces: Number(r.tr), actions: Number(r.ac) },
    dead: Number(r.dead),
  }));
}

/** Both watermarks and the history floor (history.ts) in one read: what the API bounds every read by. */
export async function readWatermarks(store: Store): Promise<{ index: Watermark | null; traces: TracesWatermark | null; floor: number | null }> {
  const db = store.database;
  const rows = await store.query<{ of: string; mc_seqno: number; gen_utime: number }>(
    `SELECT 'index' AS of, mc_seqno, gen_utime FROM (SELECT mc_seqno, gen_utime FROM ${db}.index_watermark ORDER BY mc_seqno DESC LIMIT 1)
     UNION ALL
     SELECT 'traces' AS of, mc_seqno, toUInt32(0) AS gen_utime FROM (SELECT mc_seqno FROM ${db}.trace_watermark ORDER BY mc_seqno DESC LIMIT 1)
     UNION ALL
     SELECT 'floor' AS of, mc_seqno, toUInt32(0) AS gen_utime FROM (SELECT mc_seqno FROM ${db}.index_floor ORDER BY mc_seqno LIMIT 1)`,
  );
  const index = rows.find((r) => r.of === 'index');
  const traces = rows.find((r) => r.of === 'traces');
  const floor = rows.find((r) => r.of === 'floor');
  return {
    index: index ? { mc_seqno: Number(index.mc_seqno), gen_utime: Number(index.gen_utime) } : null,
    traces: traces ? { mc_seqno: Number(traces.mc_seqno) } : null,
    floor: floor ? Number(floor.mc_seqno) : null,
  };
}
