import type { Migration } from './migration.js';

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
