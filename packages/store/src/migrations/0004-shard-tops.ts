import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 4,
  name: 'shard state of each masterchain block',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.shard_tops (
          mc_seqno UInt32, workchain Int32, shard UInt64, seqno UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_seqno, workchain, shard, seqno)`,
  ],
};
