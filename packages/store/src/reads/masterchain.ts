import type { BlockRecord } from '@tonstream/records';
import type { QueryOptions, Store } from '../client.js';
import type { Watermark } from '../index-progress.js';
import { int32, uint } from '../sql.js';
import type { ReadScope } from './scope.js';

/**
 * The first and last indexed masterchain blocks. `last` is the block at the watermark, never a block
 * above it: those may still lack records.
 */
export async function masterchainInfo(store: Store, watermark: Watermark, query?: QueryOptions): Promise<{ first: BlockRecord; last: BlockRecord } | null> {
  const db = store.database;
  const pick = (where: string, order: 'ASC' | 'DESC') =>
    store.query<{ record: string }>(`SELECT record FROM ${db}.blocks FINAL WHERE workchain = -1 AND ${where} ORDER BY seqno ${order} LIMIT 1`, query);
  const [last, first] = await Promise.all([pick(`seqno = ${uint(watermark.mc_seqno)}`, 'DESC'), pick(`seqno <= ${uint(watermark.mc_seqno)}`, 'ASC')]);
  if (last.length === 0 || first.length === 0) return null;
  return { first: JSON.parse(first[0].record) as BlockRecord, last: JSON.parse(last[0].record) as BlockRecord };
}

/** True when masterchain block `seqno` is stored and at or below the watermark. */
export async function masterchainBlockIndexed(store: Store, scope: ReadScope, seqno: number): Promise<boolean> {
  if (scope.watermark === null || seqno < 0 || seqno > scope.watermark) return false;
  // Not a count: a replayed block is stored twice until merged.
  const rows = await store.query<{ found: number }>(
    `SELECT count() > 0 AS found FROM ${store.database}.blocks WHERE workchain = -1 AND seqno = ${int32(seqno)}`,
    scope.query,
  );
  return Number(rows[0]?.found ?? 0) > 0;
}
