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
 * Lowest buckets tried in turn when counting candidates for a descending page (digits x 100): the
 * count reads only the key range above its floor, so a top page of a large table counts the rich
 * few first (a Jetton balance of 10^24 units, 10^19, 10^15, 10^12 TON in nanotons, ...) and reads
 * the whole prefix only when the page reaches that far down.
 */
const DESC_FLOORS = [2500, 2000, 1600, 1300, 1000, 0];

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
  const floors: (number | null)[] = dir === 'desc' ? DESC_FLOORS : [null];
  const count = async (floor: number | null) => {
    const where = [...source.prefix, ...(floor === null ? [] : [`bucket >= ${uint(floor)}`])];
    const rows = await store.query<{ bucket: number; n: string }>(
      `SELECT bucket, count() AS n FROM ${source.table} ${sqlWhere(where)} GROUP BY bucket ORDER BY bucket ${dir === 'desc' ? 'DESC' : 'ASC'}`,
      scope.query,
    );
    return rows.map((r) => ({ bucket: Number(r.bucket), n: Number(r.n) }));
  };
  let floor = 0;
  let counts = await count(floors[0]);
  let need = page.offset + page.limit;
  for (;;) {
    let seen = 0;
    const at = counts.findIndex((c) => (seen += c.n) >= need);
    if (at < 0) {
      // Fewer candidates above this floor than the page needs: count further down, or read them all.
      if (floor < floors.length - 1) {
        counts = await count(floors[++floor]);
        continue;
      }
      return read(null);
    }
    const found = await read({ dir, value: counts[at].bucket });
    const lastBucket = floor === floors.length - 1 && at === counts.length - 1;
    if (found.length >= page.limit || lastBucket) return found;
    // Short: fewer candidates are still in these buckets than counted. At least offset + found of the
    // `seen` are; take as many more candidates as that share says are needed (2x to 64x).
    const still = page.offset + found.length;
    need = Math.ceil(need * Math.min(MAX_WIDEN, Math.max(2, still === 0 ? MAX_WIDEN : (seen / still) * 1.25)));
  }
}
