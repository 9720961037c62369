import type { Migration } from './migration.js';

/**
 * `index_receipts`: one row per consumed Kafka message of a block, written after its rows
 * (index-progress.ts). All rows of a key share one mc_seqno, so partitions by mc_seqno (10^6 seqnos,
 * about 40 days of mainnet) keep replays collapsing and let old receipts be dropped a partition at a time.
 */
export const migration: Migration = {
  version: 2,
  name: 'index receipts and the stored-up-to watermark',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.index_receipts (
          mc_seqno UInt32, block String, kind String, part UInt16,
          records UInt32, dead UInt32,
          expect_transactions UInt32, expect_messages UInt32, expect_account_states UInt32,
          mc_blocks UInt32, index_from UInt32, gen_utime UInt32, written_ms UInt64
        ) ENGINE = ReplacingMergeTree(written_ms) PARTITION BY intDiv(mc_seqno, 1000000) ORDER BY (mc_seqno, block, kind, part)`,
    `CREATE TABLE IF NOT EXISTS ${db}.index_watermark (
          mc_seqno UInt32, gen_utime UInt32, updated_at DateTime DEFAULT now()
        ) ENGINE = ReplacingMergeTree(mc_seqno) ORDER BY tuple()`,
  ],
};
