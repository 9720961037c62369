import type { Migration } from './migration.js';

/**
 * Lookups that carried more than their reads use (issue 26, bench:storage):
 * - `messages_by_body_hash` and `messages_by_opcode` become (key, message hash): reads take the hashes
 *   and find the rows in `messages`, keyed by hash, so direction and transaction hash (~80 bytes per
 *   message on merged parts) were never read. Both are derived from `messages`: made anew under a new
 *   name and refilled (a run stopped anywhere is simply run again; until the refill, those two filters
 *   find fewer rows, as for messages not yet written).
 * - `actions_by_tx` goes (~90 bytes per transaction): the actions of a transaction are those of its trace
 *   (`transaction_traces`) that list it in `tx_hashes`.
 * - `transactions_by_mc_seqno` drops `hash`: its reads take (account, lt) and count transactions by it.
 */
export const migration: Migration = {
  version: 19,
  name: 'lookups hold only what their reads use',
  statements: (db) => [
    `DROP TABLE IF EXISTS ${db}.messages_by_body_hash_mv`,
    `DROP TABLE IF EXISTS ${db}.messages_by_body_hash`,
    `CREATE TABLE IF NOT EXISTS ${db}.message_body_hashes (body_hash String, hash String) ENGINE = ReplacingMergeTree ORDER BY (body_hash, hash)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.message_body_hashes_mv TO ${db}.message_body_hashes AS SELECT body_hash, hash FROM ${db}.messages WHERE body_hash != ''`,
    `INSERT INTO ${db}.message_body_hashes SELECT body_hash, hash FROM ${db}.messages WHERE body_hash != ''`,
    `DROP TABLE IF EXISTS ${db}.messages_by_opcode_mv`,
    `DROP TABLE IF EXISTS ${db}.messages_by_opcode`,
    `CREATE TABLE IF NOT EXISTS ${db}.message_opcodes (opcode Int64, created_lt UInt64, hash String) ENGINE = ReplacingMergeTree ORDER BY (opcode, created_lt, hash)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.message_opcodes_mv TO ${db}.message_opcodes AS SELECT opcode, created_lt, hash FROM ${db}.messages WHERE opcode >= 0`,
    `INSERT INTO ${db}.message_opcodes SELECT opcode, created_lt, hash FROM ${db}.messages WHERE opcode >= 0`,
    `DROP TABLE IF EXISTS ${db}.actions_by_tx_mv`,
    `DROP TABLE IF EXISTS ${db}.actions_by_tx`,
    `ALTER TABLE ${db}.transactions_by_mc_seqno DROP COLUMN hash`,
  ],
};
