import type { Migration } from './migration.js';

/**
 * Every table is a ReplacingMergeTree keyed by its natural id, so replayed batches collapse; the main
 * table of each kind is ordered for its common range scan, other access paths get narrow lookup
 * tables written in the same batch. Not partitioned: 18.16 deduplicates (FINAL, OPTIMIZE) only within
 * a partition. `record` keeps the full v3 JSON.
 */
export const migration: Migration = {
  version: 1,
  name: 'blocks, transactions, messages, latest account states',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.blocks (
          workchain Int32, shard UInt64, seqno UInt32,
          root_hash String, file_hash String, mc_block_seqno UInt32,
          gen_utime UInt32, start_lt UInt64, end_lt UInt64, tx_count UInt32,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (workchain, shard, seqno)`,
    `CREATE TABLE IF NOT EXISTS ${db}.blocks_by_mc_seqno (
          mc_block_seqno UInt32, workchain Int32, shard UInt64, seqno UInt32
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_block_seqno, workchain, shard, seqno)`,
    `CREATE TABLE IF NOT EXISTS ${db}.transactions (
          account String, lt UInt64, hash String, now UInt32, mc_block_seqno UInt32,
          workchain Int32, shard UInt64, block_seqno UInt32,
          orig_status String, end_status String, total_fees UInt64, descr_type String, aborted UInt8,
          in_msg_hash String, out_msg_count UInt16,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, lt)`,
    `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_hash (
          hash String, account String, lt UInt64
        ) ENGINE = ReplacingMergeTree ORDER BY hash`,
    `CREATE TABLE IF NOT EXISTS ${db}.transactions_by_mc_seqno (
          mc_block_seqno UInt32, lt UInt64, account String, hash String
        ) ENGINE = ReplacingMergeTree ORDER BY (mc_block_seqno, lt, account)`,
    `CREATE TABLE IF NOT EXISTS ${db}.messages (
          hash String, direction String, tx_hash String, tx_lt UInt64, tx_now UInt32, mc_block_seqno UInt32,
          source String, destination String, value UInt64, opcode Int64, created_lt UInt64, created_at UInt32,
          body_hash String, hash_norm String,
          record String
        ) ENGINE = ReplacingMergeTree ORDER BY (hash, direction, tx_hash)`,
    `CREATE TABLE IF NOT EXISTS ${db}.messages_by_account (
          account String, created_lt UInt64, hash String, direction String, tx_hash String
        ) ENGINE = ReplacingMergeTree ORDER BY (account, created_lt, hash, direction, tx_hash)`,
    `CREATE TABLE IF NOT EXISTS ${db}.account_states_latest (
          account String, last_trans_lt UInt64, last_trans_hash String, account_state_hash String,
          balance UInt64, status String, code_hash String, data_hash String, frozen_hash String,
          mc_block_seqno UInt32, gen_utime UInt32,
          record String
        ) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY account`,
  ],
};
