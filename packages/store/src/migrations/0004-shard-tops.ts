import type { Migration } from './migration.js';

/**
 * The shard blocks a masterchain block's ShardHashes reference (/masterchainBlockShardState); a top may
 * have been committed by an earlier masterchain block, so this is not blocks_by_mc_seqno.
 */
export const migration: Migration = {
  version: 4,
  name: 'shard state of each masterchain block',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.shard_tops (
          mc_seqno UInt32, workchain Int32, shard UInt64, seqno UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_seqno, workchain, shard, seqno)`,
  ],
};
