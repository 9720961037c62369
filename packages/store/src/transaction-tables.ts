import { ident } from './sql.js';

/** Index granularity of migration 12's tables (as RECORD_GRANULARITY in schema.ts; a cycle-free copy). */
const GRANULARITY = 256;

/**
 * Migration 12.
 * - `transaction_messages`: every message row again, ordered by its transaction's key (account, tx_lt)
 *   instead of by hash, filled by a materialized view inside the writer's INSERT into `messages` and
 *   backfilled. A page of transactions reads its messages from the granules of its own keys: by hash
 *   (the `messages` table) each of a page's ~20 messages was a granule of its own, the costliest read
 *   of a transactions page (issue 10's notes: 87 requests/s alone at 64 connections). The price is a
 *   second copy of the message records on disk.
 * - `transaction_bocs`: each transaction's BoC (base64 of the transaction cell), for v2 getTransactions'
 *   `data`. Its own table, not a column of `transactions`: 18.16 has no idempotent ADD COLUMN, and the
 *   v3 reads, which never need it, stay as fast. The writer fills it from the record's `boc`, which it
 *   cuts from the stored record text.
 */
export function transactionReadTables(database: string): string[] {
  const db = ident(database);
  const rows = `SELECT if(direction = 'in', destination, source) AS account, tx_lt, direction, hash, tx_hash, tx_now, mc_block_seqno, record FROM ${db}.messages`;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_messages (
      account String, tx_lt UInt64, direction String, hash String, tx_hash String, tx_now UInt32, mc_block_seqno UInt32,
      record String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, tx_lt, direction, hash) SETTINGS index_granularity = ${GRANULARITY}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transaction_messages_mv TO ${db}.transaction_messages AS ${rows}`,
    `INSERT INTO ${db}.transaction_messages ${rows}`,
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_bocs (
      account String, lt UInt64, boc String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, lt) SETTINGS index_granularity = ${GRANULARITY}`,
  ];
}

/**
 * Migration 14: `transaction_traces` (tx hash -> trace id, migration 8) at index granularity 256. At
 * the default 8192, the trace ids of one page of transactions (10-20 random hashes, a granule each)
 * read ~300,000 rows and 30 MB, the largest read of a /transactions request on bench:api's dataset
 * (measured from system.query_log). The table is all derived from `traces`, so it is made anew and
 * refilled from there: a run stopped anywhere is simply run again (each step then redoes its part;
 * until the refill, trace ids are missing, as for transactions the tracer has not reached).
 */
export function transactionTracesGranularity(database: string): string[] {
  const db = ident(database);
  const rows = `SELECT tx_hash, trace_id FROM ${db}.traces ARRAY JOIN tx_hashes AS tx_hash`;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.transaction_traces_m14_new (tx_hash String, trace_id String) ENGINE = ReplacingMergeTree ORDER BY (tx_hash, trace_id) SETTINGS index_granularity = ${GRANULARITY}`,
    `DROP TABLE IF EXISTS ${db}.transaction_traces_m14_old`,
    `RENAME TABLE ${db}.transaction_traces TO ${db}.transaction_traces_m14_old, ${db}.transaction_traces_m14_new TO ${db}.transaction_traces`,
    // On current ClickHouse a view follows its target's UUID (on 18.16 its name): made again on the new table.
    `DROP TABLE IF EXISTS ${db}.transaction_traces_mv`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.transaction_traces_mv TO ${db}.transaction_traces AS ${rows}`,
    `INSERT INTO ${db}.transaction_traces ${rows}`,
    `DROP TABLE IF EXISTS ${db}.transaction_traces_m14_old`,
  ];
}

/**
 * Migration 15: `account_state_summaries`, the fields of a transaction's `account_state_before/after`
 * (balance, status, code/data/frozen hashes, extra currencies) for every stored state, without the
 * state's code and data BoCs. `account_states.record` carries those BoCs, so the states of one page of
 * 10 transactions decompressed 2-15 MB (measured from system.query_log on bench:api's dataset); these
 * rows are ~300 bytes. Filled by a materialized view on `account_states` inside the writer's INSERT
 * (the fields come out of the record text: flat top-level keys, base64 and hex values) and backfilled.
 * Hashes the record has as null are ''.
 */
export function accountStateSummaryTable(database: string): string[] {
  const db = ident(database);
  const rows = `SELECT account, last_trans_lt, account_state_hash, mc_block_seqno, balance, code_hash,
    visitParamExtractString(record, 'status') AS status, visitParamExtractString(record, 'data_hash') AS data_hash,
    visitParamExtractString(record, 'frozen_hash') AS frozen_hash, visitParamExtractRaw(record, 'extra_currencies') AS extra_currencies
    FROM ${db}.account_states`;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.account_state_summaries (
      account String, last_trans_lt UInt64, account_state_hash String, mc_block_seqno UInt32, balance UInt64, code_hash String,
      status String, data_hash String, frozen_hash String, extra_currencies String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, last_trans_lt) SETTINGS index_granularity = ${GRANULARITY}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.account_state_summaries_mv TO ${db}.account_state_summaries AS ${rows}`,
    `INSERT INTO ${db}.account_state_summaries ${rows}`,
  ];
}
