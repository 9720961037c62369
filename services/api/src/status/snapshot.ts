/** Everything the status page shows, as one JSON document (`/status/data.json`). */
import { type DeadLetterCount, masterchainInfo, type RateBucket, readDeadLetterCounts, readHistoryRanges, readIndexRates, type Store } from '@tonstream/store';
import type { IndexState } from '../index-state.js';
import type { StatusConfig } from './config.js';
import { type HealthReport, readHealth } from './health.js';

/** The charts cover this much chain time before the watermark, in buckets of BUCKET_SECONDS. */
export const RATE_WINDOW_SECONDS = 600;
export const RATE_BUCKET_SECONDS = 10;
/** Every store read of the page together; the page polls, so a slow ClickHouse must not pile requests up. */
const QUERY_TIMEOUT_MS = 5_000;

type BlockRef = { seqno: number; gen_utime: number };

/** Holes listed per backfilled range on the page (the count is whole). */
const HOLES_LISTED = 20;

/** A backfilled range's completeness record, as the page shows it. */
export type HistoryRangeStatus = { from: number; to: number; mc_blocks: number; transactions: number; holes: number; first_holes: number[]; traced: boolean; checked_ms: number };

export type StatusSnapshot = {
  now: number;
  /** Null before anything is indexed. */
  watermark: (BlockRef & { lag_seconds: number }) | null;
  first: BlockRef | null;
  /** The history floor (null: none) and the backfilled ranges' gap checks (services/backfill). */
  history: { floor: number | null; ranges: HistoryRangeStatus[] };
  rates: { window_seconds: number; bucket_seconds: number; source: string; buckets: RateBucket[] };
  dead_letters: DeadLetterCount[];
  health: HealthReport;
};

export async function readSnapshot(store: Store, index: IndexState, config: StatusConfig, now: () => number = Date.now): Promise<StatusSnapshot> {
  const query = { timeoutMs: QUERY_TIMEOUT_MS };
  const [watermark, floor, health] = await Promise.all([index.watermark(), index.floor(), readHealth(config)]);
  const [info, buckets, dead, ranges] = await Promise.all([
    watermark ? masterchainInfo(store, watermark, floor, query) : null,
    watermark ? readIndexRates(store, watermark, RATE_WINDOW_SECONDS, RATE_BUCKET_SECONDS, query) : [],
    readDeadLetterCounts(store, watermark, query),
    readHistoryRanges(store, query),
  ]);
  const nowS = now() / 1000;
  return {
    now: Math.floor(nowS),
    watermark: watermark && { seqno: watermark.mc_seqno, gen_utime: watermark.gen_utime, lag_seconds: Math.max(0, Math.round(nowS - watermark.gen_utime)) },
    first: info ? { seqno: info.first.seqno, gen_utime: Number(info.first.gen_utime) } : null,
    history: {
      floor,
      ranges: ranges.map((r) => ({ from: r.from_seqno, to: r.to_seqno, mc_blocks: r.mc_blocks, transactions: r.transactions, holes: r.holes.length, first_holes: r.holes.slice(0, HOLES_LISTED), traced: r.traced, checked_ms: r.checked_ms })),
    },
    rates: {
      window_seconds: RATE_WINDOW_SECONDS,
      bucket_seconds: RATE_BUCKET_SECONDS,
      source: 'ClickHouse: blocks and transactions committed by the masterchain blocks of each bucket, by their gen_utime',
      buckets,
    },
    dead_letters: dead,
    health,
  };
}
