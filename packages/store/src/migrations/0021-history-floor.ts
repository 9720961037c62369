import type { Migration } from './migration.js';

/**
 * The history floor (issue 29, history.ts): `index_floor` holds the lowest masterchain seqno from
 * which every block up to the watermark is stored (a row per move; it only moves down, the minimum
 * counts). `history_ranges`: the completeness record of a backfilled range, written after its gap
 * check: how many blocks and transactions it holds, the seqnos that are not whole (`holes`), and
 * whether its traces are stored. The newest check of a range counts.
 */
export const migration: Migration = {
  version: 21,
  name: 'history floor and backfilled ranges',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.index_floor (
          mc_seqno UInt32, updated_at DateTime DEFAULT now()
        ) ENGINE = ReplacingMergeTree ORDER BY mc_seqno`,
    `CREATE TABLE IF NOT EXISTS ${db}.history_ranges (
          from_seqno UInt32, to_seqno UInt32, mc_blocks UInt32, blocks UInt32, transactions UInt64,
          holes Array(UInt32), traced UInt8, checked_ms UInt64
        ) ENGINE = ReplacingMergeTree(checked_ms) ORDER BY (from_seqno, to_seqno)`,
  ],
};
