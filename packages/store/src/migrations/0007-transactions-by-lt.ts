import type { Migration } from './migration.js';

/**
 * `/transactions` without an account, hash, block or message filter pages over every transaction by lt:
 * on `transactions` (ordered by account) that sorts the whole table, 130 ms at 1M rows on bench:api's
 * dataset, minutes at mainnet's billions. Ordered by lt, a page is a key range: the read layer bounds it
 * below (reads/transactions.ts) and reads only the rows above the bound. The columns are the filters
 * such a query may carry, so no other table is read for the page's keys.
 */
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
