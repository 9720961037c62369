import type { QueryOptions } from '../client.js';
import { rethrowBugs } from '@tonstream/errors';
import type { HotTier } from '../hot/layout.js';

/**
 * What every API read is bounded by: the watermark (nothing above it is served; null before anything
 * is indexed, when reads answer empty) and the caller's query limits. Reads of traces and actions
 * are bounded by `traces` too, the traces watermark (trace-progress.ts): absent or null, they answer empty.
 * `hot`: the hot tier, when it can answer at this watermark (hot/gate.ts); reads it serves ask it first.
 */
export type ReadScope = { watermark: number | null; traces?: number | null; query?: QueryOptions; hot?: HotTier };

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
