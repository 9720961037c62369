import type { Migration } from './migration.js';

/**
 * `transaction_traces` (tx hash -> trace id, migration 8) at index granularity 256. At the default 8192,
 * the trace ids of one page of transactions (10-20 random hashes, a granule each) read ~300,000 rows and
 * 30 MB, the largest read of a /transactions request on bench:api's dataset (measured from
 * system.query_log). The table is all derived from `traces`, so it is made anew and refilled from there:
 * a run stopped anywhere is simply run again (until the refill, trace ids are missing, as for
 * transactions the tracer has not reached). On current ClickHouse a view follows its target's UUID (on
 * 18.16 its name), so the view is made again on the new table.
 */
export const migration: Migration = {
  version: 14,
  name: 'transaction_traces at index granularity 256 (the trace ids of a page of transactions)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_traces_m14_new (tx_hash String, trace_id String) ENGINE = ReplacingMergeTree ORDER BY (tx_hash, trace_id) SETTINGS index_granularity = 256`,
    `DROP TABLE IF EXISTS ${db}.transaction_traces_m14_old`,
    `RENAME TABLE ${db}.transaction_traces TO ${db}.transaction_traces_m14_old, ${db}.transaction_traces_m14_new TO ${db}.transaction_traces`,
    `DROP TABLE IF EXISTS ${db}.transaction_traces_mv`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transaction_traces_mv TO ${db}.transaction_traces AS SELECT tx_hash, trace_id FROM ${db}.traces ARRAY JOIN tx_hashes AS tx_hash`,
    `INSERT INTO ${db}.transaction_traces SELECT tx_hash, trace_id FROM ${db}.traces ARRAY JOIN tx_hashes AS tx_hash`,
    `DROP TABLE IF EXISTS ${db}.transaction_traces_m14_old`,
  ],
};
