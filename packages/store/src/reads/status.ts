/**
 * What the API's status page shows of the index: throughput by chain time and dead-lettered
 * records. Every query stays on a key prefix (masterchain seqnos), so its cost does not grow with
 * the size of the index.
 */
import type { QueryOptions, Store } from '../client.js';
import type { Watermark } from '../index-progress.js';
import { uint } from '../sql.js';

/** The masterchain's one shard (blocks' second key column). */
const MC_SHARD = '9223372036854775808';
/** At most this many masterchain blocks are read for a window (mainnet makes ~120 in 10 minutes, localnet up to 2,000). */
const MAX_WINDOW_MC_BLOCKS = 5_000;
/** Receipts of this many masterchain seqnos below the watermark (and all above it) are searched for dead letters. */
const DEAD_LETTER_SEQNOS = 10_000;

/** Blocks and transactions committed by the masterchain blocks whose gen_utime falls in [t, t + bucket). */
export type RateBucket = { t: number; mc_blocks: number; blocks: number; transactions: number };

/**
 * Throughput of the `windowSeconds` of chain time ending at the watermark's block, in buckets of
 * `bucketSeconds` by masterchain gen_utime: a shard block and its transactions count at the time of
 * the masterchain block that committed it. Only indexed blocks (at or below the watermark).
 */
export async function readIndexRates(store: Store, watermark: Watermark, windowSeconds: number, bucketSeconds: number, query?: QueryOptions): Promise<RateBucket[]> {
  const db = store.database;
  const w = uint(watermark.mc_seqno);
  const since = uint(Math.max(0, watermark.gen_utime - windowSeconds));
  const lowest = uint(Math.max(0, watermark.mc_seqno - MAX_WINDOW_MC_BLOCKS));
  const mc = await store.query<{ seqno: number; gen_utime: number }>(
    `SELECT DISTINCT seqno, gen_utime FROM ${db}.blocks
     WHERE workchain = -1 AND shard = ${MC_SHARD} AND seqno > ${lowest} AND seqno <= ${w} AND gen_utime > ${since}`,
    query,
  );
  if (mc.length === 0) return [];
  const from = uint(Math.min(...mc.map((r) => Number(r.seqno))));
  const range = `mc_block_seqno >= ${from} AND mc_block_seqno <= ${w}`;
  // Counted distinct: a replayed batch is stored twice until ClickHouse merges it.
  const [txs, blocks] = await Promise.all([
    store.query<{ mc_block_seqno: number; n: string }>(`SELECT mc_block_seqno, uniqExact(account, lt) AS n FROM ${db}.transactions_by_mc_seqno WHERE ${range} GROUP BY mc_block_seqno`, query),
    store.query<{ mc_block_seqno: number; n: string }>(`SELECT mc_block_seqno, uniqExact(workchain, shard, seqno) AS n FROM ${db}.blocks_by_mc_seqno WHERE ${range} GROUP BY mc_block_seqno`, query),
  ]);
  const txBySeqno = new Map(txs.map((r) => [Number(r.mc_block_seqno), Number(r.n)]));
  const blocksBySeqno = new Map(blocks.map((r) => [Number(r.mc_block_seqno), Number(r.n)]));
  const buckets = new Map<number, RateBucket>();
  for (const { seqno, gen_utime } of mc) {
    const t = Math.floor(Number(gen_utime) / bucketSeconds) * bucketSeconds;
    const b = buckets.get(t) ?? { t, mc_blocks: 0, blocks: 0, transactions: 0 };
    b.mc_blocks += 1;
    b.blocks += blocksBySeqno.get(Number(seqno)) ?? 0;
    b.transactions += txBySeqno.get(Number(seqno)) ?? 0;
    buckets.set(t, b);
  }
  return [...buckets.values()].sort((a, b) => a.t - b.t);
}

/** Records the writer refused (sent to the records dead-letter topic), by record kind. */
export type DeadLetterCount = { kind: string; records: number; blocks: number };

/**
 * Dead-lettered records in the receipts of recent masterchain blocks: the newest receipt of each
 * consumed message counts (a block replayed after a fix may have none left). Blocks the decoder
 * could not decode at all have no receipt: their count is the decoder's errors metric.
 */
export async function readDeadLetterCounts(store: Store, watermark: Watermark | null, query?: QueryOptions): Promise<DeadLetterCount[]> {
  const from = uint(Math.max(0, (watermark?.mc_seqno ?? 0) - DEAD_LETTER_SEQNOS));
  const rows = await store.query<{ kind: string; records: string; blocks: string }>(
    `SELECT kind, sum(dead) AS records, uniqExact(block) AS blocks FROM (
       SELECT kind, block, argMax(dead, written_ms) AS dead FROM ${store.database}.index_receipts
       WHERE mc_seqno >= ${from} GROUP BY mc_seqno, block, kind, part
     ) WHERE dead > 0 GROUP BY kind ORDER BY kind`,
    query,
  );
  return rows.map((r) => ({ kind: r.kind, records: Number(r.records), blocks: Number(r.blocks) }));
}
