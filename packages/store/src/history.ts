/**
 * The history floor and backfilled ranges (issue 29).
 *
 * The index serves masterchain seqnos [floor .. watermark]. The floor begins where the index began
 * (the writer saves it with the first watermark) and moves down only over backfilled ranges whose
 * completeness record says they are whole: every block of every seqno stored (the receipts, as the
 * watermark counts them) and their traces stored. A range's gap check reads its receipts: the seqnos
 * that are not whole are its holes, reported and fetched again by the backfill.
 */
import type { QueryOptions, Store } from './client.js';
import { type BlockProgress, incompleteness, readProgress } from './index-progress.js';

/** The completeness record of one backfilled range [from_seqno .. to_seqno]. */
export type HistoryRange = {
  from_seqno: number;
  to_seqno: number;
  /** Whole masterchain seqnos of the range. */
  mc_blocks: number;
  /** Blocks (masterchain and shard) and transactions of its whole seqnos, as their manifests count them. */
  blocks: number;
  transactions: number;
  /** Seqnos that are not whole. */
  holes: number[];
  /** Its traces are stored (the lane's tracer finished and its batches are whole). */
  traced: boolean;
  checked_ms: number;
};

/** The gap check's verdict on a range, from its blocks' receipts (pure). */
export function checkRange(from: number, to: number, progress: readonly BlockProgress[]): Omit<HistoryRange, 'traced' | 'checked_ms'> {
  const bySeqno = new Map<number, BlockProgress[]>();
  for (const b of progress) {
    if (b.mc_seqno < from || b.mc_seqno > to) continue;
    const list = bySeqno.get(b.mc_seqno);
    if (list) list.push(b);
    else bySeqno.set(b.mc_seqno, [b]);
  }
  const result = { from_seqno: from, to_seqno: to, mc_blocks: 0, blocks: 0, transactions: 0, holes: [] as number[] };
  for (let n = from; n <= to; n++) {
    const of = bySeqno.get(n);
    if (!of || incompleteness(n, of)) {
      result.holes.push(n);
      continue;
    }
    result.mc_blocks++;
    const withMeta = of.filter((b) => b.manifest);
    result.blocks += withMeta.length;
    result.transactions += withMeta.reduce((sum, b) => sum + b.manifest!.transactions, 0);
  }
  return result;
}

/** Seqnos read per receipts query of a gap check. */
const CHECK_WINDOW = 2_048;

/** Reads the receipts of [from .. to] and checks them (`checkRange`), a window at a time. */
export async function readRangeCheck(store: Store, from: number, to: number): Promise<Omit<HistoryRange, 'traced' | 'checked_ms'>> {
  const total = { from_seqno: from, to_seqno: to, mc_blocks: 0, blocks: 0, transactions: 0, holes: [] as number[] };
  for (let start = from; start <= to; start += CHECK_WINDOW) {
    const end = Math.min(to, start + CHECK_WINDOW - 1);
    const part = checkRange(start, end, await readProgress(store, start - 1, end - start + 1));
    total.mc_blocks += part.mc_blocks;
    total.blocks += part.blocks;
    total.transactions += part.transactions;
    total.holes.push(...part.holes);
  }
  return total;
}

export async function saveRangeCheck(store: Store, range: HistoryRange): Promise<void> {
  // An Array(UInt32) in TabSeparated: `[1,2]`.
  await store.insert('history_ranges', [{ ...range, holes: `[${range.holes.join(',')}]`, traced: range.traced ? 1 : 0 }]);
}

/** The newest completeness record of every range checked. */
export async function readHistoryRanges(store: Store, query?: QueryOptions): Promise<HistoryRange[]> {
  // Aliases differ from the columns: 18.16 would read a column's name as the aggregate of that alias.
  const rows = await store.query<{ from_seqno: number; to_seqno: number; n_mc: number; n_blocks: number; n_tx: string; gaps: number[]; done: number; newest: string }>(
    `SELECT from_seqno, to_seqno, argMax(mc_blocks, checked_ms) AS n_mc, argMax(blocks, checked_ms) AS n_blocks,
       argMax(transactions, checked_ms) AS n_tx, argMax(holes, checked_ms) AS gaps, argMax(traced, checked_ms) AS done, max(checked_ms) AS newest
     FROM ${store.database}.history_ranges GROUP BY from_seqno, to_seqno ORDER BY from_seqno, to_seqno`,
    query,
  );
  return rows.map((r) => ({
    from_seqno: Number(r.from_seqno),
    to_seqno: Number(r.to_seqno),
    mc_blocks: Number(r.n_mc),
    blocks: Number(r.n_blocks),
    transactions: Number(r.n_tx),
    holes: r.gaps.map(Number),
    traced: Number(r.done) === 1,
    checked_ms: Number(r.newest),
  }));
}

/** A range the floor may move over: no hole, traces stored. */
export const rangeComplete = (r: HistoryRange) => r.holes.length === 0 && r.traced;

/** The floor after moving down over complete ranges that reach it, contiguously (pure). */
export function lowerFloor(floor: number, ranges: readonly HistoryRange[]): number {
  const complete = ranges.filter(rangeComplete);
  for (;;) {
    const next = complete.find((r) => r.from_seqno < floor && r.to_seqno >= floor - 1);
    if (!next) return floor;
    floor = next.from_seqno;
  }
}

/** The history floor; null before the index has one (nothing indexed yet, or an index older than migration 21). */
export async function readHistoryFloor(store: Store): Promise<number | null> {
  const rows = await store.query<{ mc_seqno: number }>(`SELECT mc_seqno FROM ${store.database}.index_floor ORDER BY mc_seqno LIMIT 1`);
  return rows.length === 0 ? null : Number(rows[0].mc_seqno);
}

export async function saveHistoryFloor(store: Store, mcSeqno: number): Promise<void> {
  await store.insert('index_floor', [{ mc_seqno: mcSeqno }]);
}
