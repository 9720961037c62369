import type { BlockRecord } from '@tonstream/records';
import type { QueryOptions, Store } from '../client.js';
import type { Watermark } from '../index-progress.js';
import { int32, uint } from '../sql.js';
import { hasTransactionSlice, hotMcBlockHeld } from '../hot/transactions.js';
import { askHotTier, type ReadScope } from './scope.js';

/** The masterchain's one shard (the sorting key's second column), so masterchain reads use the whole key. */
const MC_SHARD = '9223372036854775808';

/**
 * The first and last indexed masterchain blocks. `last` is the block at the watermark, never a block
 * above it: those may still lack records. `first` is the block at the history floor (history.ts):
 * below it a backfill may still be writing. An index without a floor (older than migration 21) has
 * its oldest stored block first, found on the narrow seqno column. Each record is read by its full key.
 */
export async function masterchainInfo(store: Store, watermark: Watermark, floor: number | null, query?: QueryOptions): Promise<{ first: BlockRecord; last: BlockRecord } | null> {
  const db = store.database;
  const mc = `workchain = -1 AND shard = ${MC_SHARD}`;
  const pick = (seqno: string) => store.query<{ record: string }>(`SELECT record FROM ${db}.blocks WHERE ${mc} AND seqno = ${seqno} LIMIT 1`, query);
  const w = uint(watermark.mc_seqno);
  const oldest = floor !== null && floor > 0 ? uint(Math.min(floor, watermark.mc_seqno)) : `(SELECT min(seqno) FROM ${db}.blocks WHERE ${mc} AND seqno <= ${w})`;
  const [last, first] = await Promise.all([pick(w), pick(oldest)]);
  if (last.length === 0 || first.length === 0) return null;
  return { first: JSON.parse(first[0].record) as BlockRecord, last: JSON.parse(last[0].record) as BlockRecord };
}

/** True when masterchain block `seqno` is stored and served: between the floor and the watermark. */
export async function masterchainBlockIndexed(store: Store, scope: ReadScope, seqno: number): Promise<boolean> {
  if (scope.watermark === null || seqno < (scope.floor ?? 0) || seqno > scope.watermark) return false;
  if (await askHotTier(scope.hot, async (tier) => (hasTransactionSlice(tier) ? hotMcBlockHeld(tier, seqno) : undefined))) return true;
  // Not a count: a replayed block is stored twice until merged.
  const rows = await store.query<{ found: number }>(
    `SELECT count() > 0 AS found FROM ${store.database}.blocks WHERE workchain = -1 AND shard = ${MC_SHARD} AND seqno = ${int32(seqno)}`,
    scope.query,
  );
  return Number(rows[0]?.found ?? 0) > 0;
}
