import type { Migration } from './migration.js';

/**
 * `trace_receipts`: one row per consumed message of the tracer, written after its rows
 * (trace-progress.ts): a trace's record or its actions keyed by the trace, so a replay collapses onto
 * the first receipt; a batch's mark under trace_id ''. Partitioned as index_receipts, to drop old ones.
 */
export const migration: Migration = {
  version: 17,
  name: 'trace batch receipts and the traces watermark',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.trace_receipts (
          mc_seqno UInt32, kind String, trace_id String,
          records UInt32, dead UInt32,
          first_mc_seqno UInt32, expect_traces UInt32, expect_actions UInt32, written_ms UInt64
        ) ENGINE = ReplacingMergeTree(written_ms) PARTITION BY intDiv(mc_seqno, 1000000) ORDER BY (mc_seqno, kind, trace_id)`,
    `CREATE TABLE IF NOT EXISTS ${db}.trace_watermark (
          mc_seqno UInt32, updated_at DateTime DEFAULT now()
        ) ENGINE = ReplacingMergeTree(mc_seqno) ORDER BY tuple()`,
  ],
};
