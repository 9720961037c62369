import type { Migration } from './migration.js';

/**
 * `account_state_summaries`: the fields of a transaction's `account_state_before/after` (balance, status,
 * code/data/frozen hashes, extra currencies) for every stored state, without the state's code and data
 * BoCs. `account_states.record` carries those BoCs, so the states of one page of 10 transactions
 * decompressed 2-15 MB (measured from system.query_log on bench:api's dataset); these rows are ~300
 * bytes. Filled by a materialized view on `account_states` inside the writer's INSERT (the fields come
 * out of the record text: flat top-level keys, base64 and hex values) and backfilled. Hashes the record
 * has as null are ''.
 */
export const migration: Migration = {
  version: 15,
  name: 'account state summaries (a transaction\'s states before and after without the code and data BoCs)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.account_state_summaries (
      account String, last_trans_lt UInt64, account_state_hash String, mc_block_seqno UInt32, balance UInt64, code_hash String,
      status String, data_hash String, frozen_hash String, extra_currencies String
    ) ENGINE = ReplacingMergeTree ORDER BY (account, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.account_state_summaries_mv TO ${db}.account_state_summaries AS SELECT account, last_trans_lt, account_state_hash, mc_block_seqno, balance, code_hash,
    visitParamExtractString(record, 'status') AS status, visitParamExtractString(record, 'data_hash') AS data_hash,
    visitParamExtractString(record, 'frozen_hash') AS frozen_hash, visitParamExtractRaw(record, 'extra_currencies') AS extra_currencies
    FROM ${db}.account_states`,
    `INSERT INTO ${db}.account_state_summaries SELECT account, last_trans_lt, account_state_hash, mc_block_seqno, balance, code_hash,
    visitParamExtractString(record, 'status') AS status, visitParamExtractString(record, 'data_hash') AS data_hash,
    visitParamExtractString(record, 'frozen_hash') AS frozen_hash, visitParamExtractRaw(record, 'extra_currencies') AS extra_currencies
    FROM ${db}.account_states`,
  ],
};
