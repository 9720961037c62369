import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 7,
  name: 'transactions by lt (the latest transactions of the whole chain)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_lt (
          lt UInt64, account String, workchain Int32, shard UInt64, block_seqno UInt32, mc_block_seqno UInt32, now UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (lt, account)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transactions_by_lt_mv TO ${db}.transactions_by_lt AS SELECT lt, account, workchain, shard, block_seqno, mc_block_seqno, now FROM ${db}.transactions`,
    `INSERT INTO ${db}.transactions_by_lt SELECT lt, account, workchain, shard, block_seqno, mc_block_seqno, now FROM ${db}.transactions`,
  ],
};
