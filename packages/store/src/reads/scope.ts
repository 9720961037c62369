import type { QueryOptions } from '../client.js';
import { rethrowBugs } from '@tonstream/errors';
import type { HotTier } from '../hot/layout.js';
import { uint } from '../sql.js';

/**
 * What every API read is bounded by: the watermark (nothing above it is served; null before anything
 * is indexed, when reads answer empty), the history floor (nothing below it is served: a backfill may
 * be writing there, history.ts; absent or 0: no floor) and the caller's query limits. Reads of traces
 * and actions are bounded by `traces` too, the traces watermark (trace-progress.ts): absent or null,
 * they answer empty. `hot`: the hot tier, when it can answer at this watermark (hot/gate.ts); reads it
 * serves ask it first (it holds only what the live writers wrote: above the floor).
 */
export type ReadScope = { watermark: number | null; floor?: number; traces?: number | null; query?: QueryOptions; hot?: HotTier };

/** `column` (a masterchain seqno) within what the index serves: from the scope's floor up to `upTo` (the watermark, or the traces bound). */
export function servedSeqnos(column: string, upTo: number, floor = 0): string {
  return floor > 0 ? `${column} BETWEEN ${uint(floor)} AND ${uint(upTo)}` : `${column} <= ${uint(upTo)}`;
}

/** The highest masterchain seqno a trace or action served may end in: both watermarks; null: none. */
export function tracesBound(scope: ReadScope): number | null {
  if (scope.watermark === null || scope.traces === undefined || scope.traces === null) return null;
  return Math.min(scope.watermark, scope.traces);
}

/**
 * Settings of the reads that touch a few granules by key (a page, a lookup by hash or account). One
 * thread: such a read has too little to split, and at 64 concurrent requests every extra thread is
 * only scheduling on a busy server (measured in issue 10's notes: a latest-state lookup at 64
 * connections 553 -> 840 requests/s). The uncompressed cache keeps the hot granules of `record`
 * decompressed across requests (a page's and its neighbours' granules are read by several reads).
 */
export const POINT_READ_SETTINGS: Readonly<Record<string, number>> = { max_threads: 1, use_uncompressed_cache: 1 };

/** The scope's query options with POINT_READ_SETTINGS. */
export function pointRead(scope: ReadScope): QueryOptions {
  return { ...scope.query, settings: POINT_READ_SETTINGS };
}

/** A page of a list: limit and offset as validated by the caller, sort direction from the allow-list below. */
export type Page = { limit: number; offset: number; sort: SortDirection };
export type SortDirection = 'asc' | 'desc';

/** The only two directions that reach SQL. */
export function sqlDirection(sort: SortDirection): 'ASC' | 'DESC' {
  return sort === 'asc' ? 'ASC' : 'DESC';
}

/** `LIMIT offset, limit` for validated integers; anything else throws before reaching SQL. */
export function sqlPage(page: Pick<Page, 'limit' | 'offset'>): string {
  if (!Number.isSafeInteger(page.limit) || !Number.isSafeInteger(page.offset) || page.limit < 1 || page.offset < 0) {
    throw new RangeError(`bad page: limit ${page.limit}, offset ${page.offset}`);
  }
  return `LIMIT ${page.offset}, ${page.limit}`;
}

/**
 * One page of `columns` of `source` (a table and its WHERE), ordered by `order`, one row per `by` (rows
 * of a replay not merged yet). On a cluster the rows are made unique before the page is cut: ClickHouse
 * 18.16 sends each shard the query's LIMIT without its LIMIT BY, so a shard whose first rows repeat a key
 * returned fewer keys than the page (5 of 10 in test/integration/store-cluster.test.ts). The inner query
 * carries the columns of the order's terms (a column, or a function of one column, at every caller).
 */
export function uniquePage(onCluster: boolean, columns: string, source: string, order: string, by: string, page: Pick<Page, 'limit' | 'offset'>): string {
  const unique = `ORDER BY ${order} LIMIT 1 BY ${by}`;
  if (!onCluster) return `SELECT ${columns} FROM ${source} ${unique} ${sqlPage(page)}`;
  // A term's column: `lt DESC` -> lt, `toInt64(shard) DESC` -> shard (the outer ORDER BY computes the expression again).
  const names = (list: string) => list.split(',').map((c) => c.trim().replace(/\s+(ASC|DESC)$/i, '').replace(/^\w+\((\w+)\)$/, '$1'));
  const inner = columns.trim() === '*' ? '*' : [...new Set([...names(columns), ...names(order), ...names(by)])].join(', ');
  return `SELECT ${columns} FROM (SELECT ${inner} FROM ${source} ${unique}) ORDER BY ${order} ${sqlPage(page)}`;
}

/** Joins WHERE conditions; every condition was built from literal functions. */
export function sqlWhere(conditions: string[]): string {
  return conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
}

/**
 * What the hot tier (scope.hot) answers of a read, or undefined without a tier or when Redis failed:
 * the caller reads ClickHouse then (slower, never an error). A programming error is not a fallback.
 */
export async function askHotTier<T>(tier: HotTier | undefined, read: (tier: HotTier) => Promise<T>): Promise<T | undefined> {
  if (!tier) return undefined;
  try {
    return await read(tier);
  } catch (err) {
    rethrowBugs(err);
    return undefined;
  }
}
