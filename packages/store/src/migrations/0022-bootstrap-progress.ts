import type { Migration } from './migration.js';

/**
 * How far a state bootstrap got (services/writer bootstrap-progress.ts): a row per shard state ("part")
 * after each batch written (accounts so far, the last account's key, done), and part `*` once every
 * part at that masterchain seqno is done. The newest row of a part counts.
 */
export const migration: Migration = {
  version: 22,
  name: 'state bootstrap progress',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.bootstrap_progress (
          mc_seqno UInt32, part String, accounts UInt64, last_account String, done UInt8, updated_ms UInt64
        ) ENGINE = ReplacingMergeTree(updated_ms) ORDER BY (mc_seqno, part)`,
  ],
};
