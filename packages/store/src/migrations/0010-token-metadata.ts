import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 10,
  name: 'token metadata: the off-chain content cache and the metadata worker\'s discovery cursor',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.token_metadata (
      uri String, status String, reason String, content String, attempts UInt16, next_attempt_at UInt64, updated_at UInt64
    ) ENGINE = ReplacingMergeTree(updated_at) ORDER BY uri`,
    `CREATE TABLE IF NOT EXISTS ${db}.token_metadata_progress (name String, mc_seqno UInt32, updated_at UInt64) ENGINE = ReplacingMergeTree(updated_at) ORDER BY name`,
  ],
};
