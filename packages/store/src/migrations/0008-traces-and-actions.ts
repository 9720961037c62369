import type { Migration } from './migration.js';

/**
 * The main tables are keyed by the trace (one read of a trace's record or actions is a primary-key
 * range); every other access path is a narrow lookup table filled by a materialized view inside the
 * writer's own INSERT (as migration 5), the per-account and per-transaction ones through ARRAY JOIN over
 * the row's lists. Lookups carry every column their reads filter on, so a page is read from the lookup
 * alone and only its rows' records are fetched from the main table by key. A trace published incomplete
 * and later complete is two versions: ReplacingMergeTree(end_lt) keeps the later, and reads take the
 * latest with `LIMIT 1 BY`.
 */
export const migration: Migration = {
  version: 8,
  name: 'traces and actions, with their lookups (by end lt, masterchain block, account, transaction)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.traces (
      trace_id String, end_lt UInt64, end_utime UInt32, start_lt UInt64, start_utime UInt32,
      mc_seqno_start UInt32, mc_seqno_end UInt32, external_hash String, external_hash_norm String,
      trace_state String, is_incomplete UInt8, transactions UInt32,
      tx_hashes Array(String), accounts Array(String),
      record String
    ) ENGINE = ReplacingMergeTree(end_lt) ORDER BY trace_id SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.actions (
      trace_id String, action_id String, type String, parent_action_id String, ancestor_type Array(String),
      start_lt UInt64, end_lt UInt64, trace_end_lt UInt64, trace_end_utime UInt32, trace_mc_seqno_end UInt32,
      tx_hashes Array(String), accounts Array(String),
      record String
    ) ENGINE = ReplacingMergeTree ORDER BY (trace_id, action_id) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.traces_by_end_lt (end_lt UInt64, trace_id String, end_utime UInt32, mc_seqno_end UInt32) ENGINE = ReplacingMergeTree ORDER BY (end_lt, trace_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.traces_by_end_lt_mv TO ${db}.traces_by_end_lt AS SELECT end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces`,
    `CREATE TABLE IF NOT EXISTS ${db}.traces_by_mc_seqno (end_lt UInt64, trace_id String, end_utime UInt32, mc_seqno_end UInt32) ENGINE = ReplacingMergeTree ORDER BY (mc_seqno_end, end_lt, trace_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.traces_by_mc_seqno_mv TO ${db}.traces_by_mc_seqno AS SELECT end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces`,
    `CREATE TABLE IF NOT EXISTS ${db}.traces_by_account (account String, end_lt UInt64, trace_id String, end_utime UInt32, mc_seqno_end UInt32) ENGINE = ReplacingMergeTree ORDER BY (account, end_lt, trace_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.traces_by_account_mv TO ${db}.traces_by_account AS SELECT account, end_lt, trace_id, end_utime, mc_seqno_end FROM ${db}.traces ARRAY JOIN accounts AS account`,
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_traces (tx_hash String, trace_id String) ENGINE = ReplacingMergeTree ORDER BY (tx_hash, trace_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transaction_traces_mv TO ${db}.transaction_traces AS SELECT tx_hash, trace_id FROM ${db}.traces ARRAY JOIN tx_hashes AS tx_hash`,
    `CREATE TABLE IF NOT EXISTS ${db}.actions_by_id (action_id String, trace_id String) ENGINE = ReplacingMergeTree ORDER BY (action_id, trace_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.actions_by_id_mv TO ${db}.actions_by_id AS SELECT action_id, trace_id FROM ${db}.actions`,
    `CREATE TABLE IF NOT EXISTS ${db}.actions_by_trace_end_lt (trace_end_lt UInt64, trace_id String, end_lt UInt64, action_id String, trace_end_utime UInt32, trace_mc_seqno_end UInt32, type String, ancestor_type Array(String)) ENGINE = ReplacingMergeTree ORDER BY (trace_end_lt, trace_id, end_lt, action_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.actions_by_trace_end_lt_mv TO ${db}.actions_by_trace_end_lt AS SELECT trace_end_lt, trace_id, end_lt, action_id, trace_end_utime, trace_mc_seqno_end, type, ancestor_type FROM ${db}.actions`,
    `CREATE TABLE IF NOT EXISTS ${db}.action_accounts (account String, trace_end_lt UInt64, trace_id String, end_lt UInt64, action_id String, trace_end_utime UInt32, trace_mc_seqno_end UInt32, type String, ancestor_type Array(String)) ENGINE = ReplacingMergeTree ORDER BY (account, trace_end_lt, trace_id, end_lt, action_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.action_accounts_mv TO ${db}.action_accounts AS SELECT account, trace_end_lt, trace_id, end_lt, action_id, trace_end_utime, trace_mc_seqno_end, type, ancestor_type FROM ${db}.actions ARRAY JOIN accounts AS account`,
    `CREATE TABLE IF NOT EXISTS ${db}.actions_by_tx (tx_hash String, trace_id String, action_id String) ENGINE = ReplacingMergeTree ORDER BY (tx_hash, trace_id, action_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.actions_by_tx_mv TO ${db}.actions_by_tx AS SELECT tx_hash, trace_id, action_id FROM ${db}.actions ARRAY JOIN tx_hashes AS tx_hash`,
  ],
};
