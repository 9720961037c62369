import type { BlockRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import { int32, str, uint } from '../sql.js';
import { type Page, type ReadScope, servedSeqnos, sqlDirection, sqlWhere, uniquePage } from './scope.js';

/** Filters of `/api/v3/blocks`; every field optional, all ANDed. Bounds are inclusive. */
export type BlockFilter = {
  workchain?: number;
  /** The shard as the unsigned 64-bit number the `shard` column holds. */
  shard?: bigint;
  seqno?: number;
  rootHash?: string;
  fileHash?: string;
  /** Blocks committed by this masterchain block (`mc_block_seqno`), via `blocks_by_mc_seqno`. */
  mcSeqno?: number;
  /** The shard blocks masterchain block N's shard state references (`shard_tops`, migration 4). */
  shardStateOf?: number;
  startUtime?: number;
  endUtime?: number;
  /** Both lt bounds compare with the block's start_lt, as toncenter does. */
  startLt?: bigint;
  endLt?: bigint;
};

/**
 * Allow-listed orders: `gen_utime` (toncenter's /blocks order; ties by block id) and `id`
 * (workchain, shard, seqno: masterchain first, for the blocks of one masterchain seqno).
 */
// Shards as signed 64-bit numbers, as toncenter orders them (its column is a PostgreSQL bigint):
// 0x8000000000000000 is the smallest, so a block of the whole shard comes first.
const ORDERS = {
  gen_utime: (d: string) => `gen_utime ${d}, workchain ${d}, toInt64(shard) ${d}, seqno ${d}`,
  id: (d: string) => `workchain ${d}, toInt64(shard) ${d}, seqno ${d}`,
} as const;
export type BlockOrder = keyof typeof ORDERS;

/**
 * Blocks at or below the watermark matching `filter`, deduplicated, one page of them: the page's block
 * ids from narrow columns first, then the records of those ids only (see readTransactions).
 */
export async function readBlocks(store: Store, scope: ReadScope, filter: BlockFilter, page: Page & { order: BlockOrder }): Promise<BlockRecord[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const where = [servedSeqnos('mc_block_seqno', scope.watermark, scope.floor)];
  if (filter.workchain !== undefined) where.push(`workchain = ${int32(filter.workchain)}`);
  if (filter.shard !== undefined) where.push(`shard = ${uint(filter.shard)}`);
  if (filter.seqno !== undefined) where.push(`seqno = ${int32(filter.seqno)}`);
  if (filter.rootHash !== undefined) where.push(`root_hash = ${str(filter.rootHash)}`);
  if (filter.fileHash !== undefined) where.push(`file_hash = ${str(filter.fileHash)}`);
  if (filter.mcSeqno !== undefined) {
    // The lookup table is ordered by mc_block_seqno; the main table by block id.
    where.push(`(workchain, shard, seqno) IN (SELECT workchain, shard, seqno FROM ${db}.blocks_by_mc_seqno WHERE mc_block_seqno = ${int32(filter.mcSeqno)})`);
  }
  if (filter.shardStateOf !== undefined) {
    const tops = `SELECT workchain, shard, seqno FROM ${db}.shard_tops WHERE mc_seqno = ${int32(filter.shardStateOf)} AND ${servedSeqnos('mc_seqno', scope.watermark, scope.floor)}`;
    where.push(`(workchain, shard, seqno) IN (${tops})`);
  }
  if (filter.startUtime !== undefined) where.push(`gen_utime >= ${uint(filter.startUtime)}`);
  if (filter.endUtime !== undefined) where.push(`gen_utime <= ${uint(filter.endUtime)}`);
  if (filter.startLt !== undefined) where.push(`start_lt >= ${uint(filter.startLt)}`);
  if (filter.endLt !== undefined) where.push(`start_lt <= ${uint(filter.endLt)}`);
  const order = ORDERS[page.order](sqlDirection(page.sort));
  const ids = uniquePage(store.cluster !== null, 'workchain, shard, seqno', `${db}.blocks ${sqlWhere(where)}`, order, 'workchain, shard, seqno', page);
  const rows = await store.query<{ record: string }>(
    `SELECT record FROM ${db}.blocks WHERE (workchain, shard, seqno) IN (${ids}) ORDER BY ${order} LIMIT 1 BY workchain, shard, seqno`,
    scope.query,
  );
  return rows.map((r) => JSON.parse(r.record) as BlockRecord);
}
