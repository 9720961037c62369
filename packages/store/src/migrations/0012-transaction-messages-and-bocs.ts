import type { Migration } from './migration.js';

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
