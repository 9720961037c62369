import type { Migration } from './migration.js';

/**
 * - `transaction_messages`: every message row again, ordered by its transaction's key (account, tx_lt)
 *   instead of by hash, filled by a materialized view inside the writer's INSERT into `messages` and
 *   backfilled. A page of transactions reads its messages from the granules of its own keys: by hash
 *   each of a page's ~20 messages was a granule of its own, the costliest read of a transactions page
 *   (issue 10's notes: 87 requests/s alone at 64 connections). The price is a second copy of the
 *   message records on disk.
 * - `transaction_bocs`: each transaction's BoC (base64 of the transaction cell), for v2 getTransactions'
 *   `data`. Its own table, not a column of `transactions`: 18.16 has no idempotent ADD COLUMN, and the v3
 *   reads, which never need it, stay as fast. The writer fills it from the record's `boc`.
 */
export const migration: Migration = {
  version: 12,
  name: 'messages by their transaction (a page of transactions with its messages in one read); transaction BoCs',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_messages (
      account String, tx_lt UInt64, direction String, hash String, tx_hash String, tx_now UInt32, mc_block_seqno UInt32,
      record String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, tx_lt, direction, hash) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transaction_messages_mv TO ${db}.transaction_messages AS SELECT if(direction = 'in', destination, source) AS account, tx_lt, direction, hash, tx_hash, tx_now, mc_block_seqno, record FROM ${db}.messages`,
    `INSERT INTO ${db}.transaction_messages SELECT if(direction = 'in', destination, source) AS account, tx_lt, direction, hash, tx_hash, tx_now, mc_block_seqno, record FROM ${db}.messages`,
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_bocs (
      account String, lt UInt64, boc String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, lt) SETTINGS index_granularity = 256`,
  ],
};
