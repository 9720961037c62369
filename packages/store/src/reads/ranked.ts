import type { Store } from '../client.js';
import { uint } from '../sql.js';
import { balanceBucket } from '../token-schema.js';
import { type ReadScope, type SortDirection, sqlWhere } from './scope.js';

/*
 * Pages ranked by balance over a table of (prefix..., bucket, id) candidates (migration 11:
 * `jetton_wallets_by_balance`, `accounts_by_balance`). A row names an id whose balance was once in
 * that bucket; the id's state at the watermark decides. So a page is read from the buckets at the
 * top (desc) or bottom (asc) holding at least offset + limit candidates, and is complete when that
 * many ids are still in those buckets at the watermark; when rows left behind in old buckets make
 * it short, twice as many candidates are taken.
 */

/**
 * How long a candidate table's bucket counts are reused. They only choose how far down a page reads:
 * counts gone stale (rows added or merged away since) make a read take more candidates than needed,
 * or fewer and then widen, never a wrong page.
 */
const COUNTS_TTL_MS = 10_000;
const COUNTS_KEPT = 1_000;
type BucketCount = { bucket: number; n: number };
const bucketCounts = new WeakMap<Store, Map<string, { at: number; counts: Promise<BucketCount[]> }>>();

/** Candidates per bucket of one prefix, highest bucket first (shared by the requests of COUNTS_TTL_MS). */
function countsOf(store: Store, scope: ReadScope, source: { table: string; prefix: string[] }): Promise<BucketCount[]> {
  let kept = bucketCounts.get(store);
  if (!kept) bucketCounts.set(store, (kept = new Map()));
  const key = `${source.table} ${sqlWhere(source.prefix)}`;
  const hit = kept.get(key);
  if (hit && Date.now() - hit.at < COUNTS_TTL_MS) return hit.counts;
  if (kept.size >= COUNTS_KEPT) kept.clear();
  const counts = store
    .query<{ bucket: number; n: string }>(`SELECT bucket, count() AS n FROM ${source.table} ${sqlWhere(source.prefix)} GROUP BY bucket ORDER BY bucket DESC`, { ...scope.query, signal: undefined })
    .then((rows) => rows.map((r) => ({ bucket: Number(r.bucket), n: Number(r.n) })));
  const entry = { at: Date.now(), counts };
  kept.set(key, entry);
  counts.catch(() => kept.get(key) === entry && kept.delete(key));
  return counts;
}

/** The most a short page multiplies the candidates wanted by, per retry. */
const MAX_WIDEN = 64;

/** The buckets a page read is bounded to: `bucket >= value` (desc) or `bucket <= value` (asc); null: every bucket. */
export type BucketBound = { dir: SortDirection; value: number } | null;

/** The SQL condition that `expr` (a decimal String expression) lies within `bound`. */
export function withinBound(expr: string, bound: BucketBound): string[] {
  return bound === null ? [] : [`${balanceBucket(expr)} ${bound.dir === 'desc' ? '>=' : '<='} ${uint(bound.value)}`];
}

/** The candidate rows of `bound` in a ranked table (for `id IN (...)`). */
export function bucketCandidates(table: string, id: string, prefix: string[], bound: BucketBound): string {
  const bucket = bound === null ? [] : [`bucket ${bound.dir === 'desc' ? '>=' : '<='} ${uint(bound.value)}`];
  return `SELECT ${id} FROM ${table} ${sqlWhere([...prefix, ...bucket])}`;
}

/**
 * A page ranked by balance. `table` (with `bucket`) and `prefix` (conditions on its key before the
 * bucket) name the candidates; `read(bound)` returns the page (offset and limit applied) of the ids
 * whose state at the watermark lies within `bound`, ordered by balance.
 */
export async function rankedPage<T>(
  store: Store,
  scope: ReadScope,
  source: { table: string; prefix: string[] },
  dir: SortDirection,
  page: { limit: number; offset: number },
  read: (bound: BucketBound) => Promise<T[]>,
): Promise<T[]> {
  const all = await countsOf(store, scope, source);
  const counts = dir === 'desc' ? all : [...all].reverse();
  // Rows left in old buckets by ids that moved make the count optimistic: ask a quarter more (and ten),
  // so a page rarely needs a second round without reading many more rows than it shows.
  let need = Math.ceil((page.offset + page.limit) * 1.25) + 10;
  for (;;) {
    let seen = 0;
    const at = counts.findIndex((c) => (seen += c.n) >= need);
    if (at < 0) return read(null);
    const found = await read({ dir, value: counts[at].bucket });
    if (found.length >= page.limit || at === counts.length - 1) return found;
    // Short: fewer candidates are still in these buckets than counted. At least offset + found of the
    // `seen` are; take as many more candidates as that share says are needed (2x to 64x).
    const still = page.offset + found.length;
    need = Math.ceil(need * Math.min(MAX_WIDEN, Math.max(2, still === 0 ? MAX_WIDEN : (seen / still) * 1.25)));
  }
}
