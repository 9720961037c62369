import type { Migration } from './migration.js';

/**
 * Every stored state, not only the latest: the API serves the latest state at or below the watermark,
 * and a transaction's account_state_before/after by (account, state hash).
 */
export const migration: Migration = {
  version: 3,
  name: 'account states by account and lt (history, state hash lookups)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.account_states (
          account String, last_trans_lt UInt64, account_state_hash String, mc_block_seqno UInt32,
          balance UInt64, code_hash String,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, last_trans_lt)`,
  ],
};
