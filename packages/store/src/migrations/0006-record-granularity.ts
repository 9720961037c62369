import type { Migration } from './migration.js';

/**
 * The five tables holding `record` rebuilt at index granularity 256. A read of one key decompresses
 * whole granules of every column it selects, and `record` is most of a row (1-2 KB): at the default 8192
 * rows a granule of it is 10-15 MB. Measured on bench:api's dataset (1M transactions, 100k accounts;
 * test/bench/api-table-design.ts), one query alone at 8192 -> 256: a page of an account's transactions
 * 284 -> 13 ms, of a masterchain block's 3,942 -> 16 ms, the oldest masterchain block 202 -> 7 ms, 20 code
 * hashes 34 -> 20 ms; at 64 connections 256 served 1.0-1.5x the requests of 1024.
 *
 * Per table (18.16 cannot change index_granularity in place and has no EXCHANGE TABLES): the new, empty
 * table is renamed in first, so every write from then on lands in it, then the old rows are copied in
 * (until that copy ends, readers miss them). The old table stays as `<table>_m6_old` until its rows are
 * copied; a run stopped before that copies them on the next run (the first INSERT; rows are keyed by
 * natural ids, so copying twice stores each fact once). Two runs must not interleave (one's DROP could
 * take the other's renamed old table): `migrate` holds a lock. Migration 5's views on `messages` are
 * made again after the RENAME (on 18.16 a view follows the table's name, on current ClickHouse its
 * UUID) and their tables refilled after the copy.
 */
export const migration: Migration = {
  version: 6,
  name: 'tables with records at index granularity 256',
  statements: (db) => [
    `INSERT INTO ${db}.transactions SELECT * FROM merge('${db}', '^(transactions|transactions_m6_old)$') WHERE _table = 'transactions_m6_old'`,
    `DROP TABLE IF EXISTS ${db}.transactions_m6_old`,
    `CREATE TABLE IF NOT EXISTS ${db}.transactions_m6_new AS ${db}.transactions ENGINE = ReplacingMergeTree ORDER BY (account, lt) SETTINGS index_granularity = 256`,
    `RENAME TABLE ${db}.transactions TO ${db}.transactions_m6_old, ${db}.transactions_m6_new TO ${db}.transactions`,
    `INSERT INTO ${db}.transactions SELECT * FROM ${db}.transactions_m6_old`,
    `DROP TABLE IF EXISTS ${db}.transactions_m6_old`,
    `INSERT INTO ${db}.messages SELECT * FROM merge('${db}', '^(messages|messages_m6_old)$') WHERE _table = 'messages_m6_old'`,
    `DROP TABLE IF EXISTS ${db}.messages_m6_old`,
    `CREATE TABLE IF NOT EXISTS ${db}.messages_m6_new AS ${db}.messages ENGINE = ReplacingMergeTree ORDER BY (hash, direction, tx_hash) SETTINGS index_granularity = 256`,
    `RENAME TABLE ${db}.messages TO ${db}.messages_m6_old, ${db}.messages_m6_new TO ${db}.messages`,
    `DROP TABLE IF EXISTS ${db}.messages_by_body_hash_mv`,
    `DROP TABLE IF EXISTS ${db}.messages_by_opcode_mv`,
    `DROP TABLE IF EXISTS ${db}.messages_by_hash_norm_mv`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.messages_by_body_hash_mv TO ${db}.messages_by_body_hash AS SELECT body_hash, hash, direction, tx_hash FROM ${db}.messages WHERE body_hash != ''`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.messages_by_opcode_mv TO ${db}.messages_by_opcode AS SELECT opcode, created_lt, hash, direction, tx_hash FROM ${db}.messages WHERE opcode >= 0`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.messages_by_hash_norm_mv TO ${db}.messages_by_hash_norm AS SELECT hash_norm, hash, direction, tx_hash FROM ${db}.messages WHERE hash_norm != ''`,
    `INSERT INTO ${db}.messages SELECT * FROM ${db}.messages_m6_old`,
    // Rows written between the RENAME and the views' return have no lookup rows yet.
    `INSERT INTO ${db}.messages_by_body_hash SELECT body_hash, hash, direction, tx_hash FROM ${db}.messages WHERE body_hash != ''`,
    `INSERT INTO ${db}.messages_by_opcode SELECT opcode, created_lt, hash, direction, tx_hash FROM ${db}.messages WHERE opcode >= 0`,
    `INSERT INTO ${db}.messages_by_hash_norm SELECT hash_norm, hash, direction, tx_hash FROM ${db}.messages WHERE hash_norm != ''`,
    `DROP TABLE IF EXISTS ${db}.messages_m6_old`,
    `INSERT INTO ${db}.blocks SELECT * FROM merge('${db}', '^(blocks|blocks_m6_old)$') WHERE _table = 'blocks_m6_old'`,
    `DROP TABLE IF EXISTS ${db}.blocks_m6_old`,
    `CREATE TABLE IF NOT EXISTS ${db}.blocks_m6_new AS ${db}.blocks ENGINE = ReplacingMergeTree ORDER BY (workchain, shard, seqno) SETTINGS index_granularity = 256`,
    `RENAME TABLE ${db}.blocks TO ${db}.blocks_m6_old, ${db}.blocks_m6_new TO ${db}.blocks`,
    `INSERT INTO ${db}.blocks SELECT * FROM ${db}.blocks_m6_old`,
    `DROP TABLE IF EXISTS ${db}.blocks_m6_old`,
    `INSERT INTO ${db}.account_states SELECT * FROM merge('${db}', '^(account_states|account_states_m6_old)$') WHERE _table = 'account_states_m6_old'`,
    `DROP TABLE IF EXISTS ${db}.account_states_m6_old`,
    `CREATE TABLE IF NOT EXISTS ${db}.account_states_m6_new AS ${db}.account_states ENGINE = ReplacingMergeTree ORDER BY (account, last_trans_lt) SETTINGS index_granularity = 256`,
    `RENAME TABLE ${db}.account_states TO ${db}.account_states_m6_old, ${db}.account_states_m6_new TO ${db}.account_states`,
    `INSERT INTO ${db}.account_states SELECT * FROM ${db}.account_states_m6_old`,
    `DROP TABLE IF EXISTS ${db}.account_states_m6_old`,
    `INSERT INTO ${db}.account_states_latest SELECT * FROM merge('${db}', '^(account_states_latest|account_states_latest_m6_old)$') WHERE _table = 'account_states_latest_m6_old'`,
    `DROP TABLE IF EXISTS ${db}.account_states_latest_m6_old`,
    `CREATE TABLE IF NOT EXISTS ${db}.account_states_latest_m6_new AS ${db}.account_states_latest ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY account SETTINGS index_granularity = 256`,
    `RENAME TABLE ${db}.account_states_latest TO ${db}.account_states_latest_m6_old, ${db}.account_states_latest_m6_new TO ${db}.account_states_latest`,
    `INSERT INTO ${db}.account_states_latest SELECT * FROM ${db}.account_states_latest_m6_old`,
    `DROP TABLE IF EXISTS ${db}.account_states_latest_m6_old`,
  ],
};
