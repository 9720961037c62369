import type { BlockRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import type { Watermark } from '../index-progress.js';
import { uint } from '../sql.js';

/**
 * The first and last indexed masterchain blocks. `last` is the block at the watermark, never a block
 * above it: those may still lack records.
 */
export async function masterchainInfo(store: Store, watermark: Watermark): Promise<{ first: BlockRecord; last: BlockRecord } | null> {
  const db = store.database;
  const pick = (where: string, order: 'ASC' | 'DESC') =>
    store.query<{ record: string }>(`SELECT record FROM ${db}.blocks FINAL WHERE workchain = -1 AND ${where} ORDER BY seqno ${order} LIMIT 1`);
  const [last, first] = await Promise.all([pick(`seqno = ${uint(watermark.mc_seqno)}`, 'DESC'), pick(`seqno <= ${uint(watermark.mc_seqno)}`, 'ASC')]);
  if (last.length === 0 || first.length === 0) return null;
  return { first: JSON.parse(first[0].record) as BlockRecord, last: JSON.parse(last[0].record) as BlockRecord };
}
