import type { Migration } from './migration.js';

/**
 * Token state history and the tables that rank by balance (issue 14).
 *
 * `<state table>_history`: every stored version of each token contract, ordered (address,
 * last_trans_lt) as `account_states` beside `account_states_latest`. The state tables keep only a
 * contract's latest version once merged, so a version above the watermark would hide the one a read at
 * the watermark must serve; the history still has it. Filled by views inside the writer's INSERT, and
 * backfilled with the versions stored before (the latest of each contract once merged).
 *
 * `jetton_wallets_by_balance` (jetton, bucket, wallet) and `accounts_by_balance` (bucket, account): a row
 * for every bucket a wallet's or account's balance has been in (the bucket: decimal digits x 100 + the
 * first two digits, as `balanceBucket` in token-schema.ts computes it today). ReplacingMergeTree by that
 * key (no version: a row only names a candidate), so a balance moving within its bucket adds nothing and
 * a row left behind in an old bucket is dropped when the candidate's state at the watermark is read. The
 * jetton is keyed by cityHash64(jetton): the bucket counts read 8 bytes a row, not a 66-byte address. The
 * accounts' backfill takes each account's latest state, and every stored state of the accounts whose
 * latest is above the watermark (the state a read at the watermark serves may be any of those).
 */
export const migration: Migration = {
  version: 11,
  name: 'token state history; Jetton wallets and accounts ranked by balance',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_wallets_history AS ${db}.jetton_wallets ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.jetton_wallets_history_mv TO ${db}.jetton_wallets_history AS SELECT * FROM ${db}.jetton_wallets`,
    `INSERT INTO ${db}.jetton_wallets_history SELECT * FROM ${db}.jetton_wallets`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_masters_history AS ${db}.jetton_masters ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.jetton_masters_history_mv TO ${db}.jetton_masters_history AS SELECT * FROM ${db}.jetton_masters`,
    `INSERT INTO ${db}.jetton_masters_history SELECT * FROM ${db}.jetton_masters`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_collections_history AS ${db}.nft_collections ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.nft_collections_history_mv TO ${db}.nft_collections_history AS SELECT * FROM ${db}.nft_collections`,
    `INSERT INTO ${db}.nft_collections_history SELECT * FROM ${db}.nft_collections`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_items_history AS ${db}.nft_items ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.nft_items_history_mv TO ${db}.nft_items_history AS SELECT * FROM ${db}.nft_items`,
    `INSERT INTO ${db}.nft_items_history SELECT * FROM ${db}.nft_items`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_wallets_by_balance (jetton_hash UInt64, bucket UInt16, address String) ENGINE = ReplacingMergeTree ORDER BY (jetton_hash, bucket, address)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.jetton_wallets_by_balance_mv TO ${db}.jetton_wallets_by_balance AS SELECT cityHash64(jetton) AS jetton_hash, toUInt16(length(balance) * 100 + toUInt8OrZero(substring(balance, 1, 2))) AS bucket, address FROM ${db}.jetton_wallets`,
    `INSERT INTO ${db}.jetton_wallets_by_balance SELECT cityHash64(jetton) AS jetton_hash, toUInt16(length(balance) * 100 + toUInt8OrZero(substring(balance, 1, 2))) AS bucket, address FROM ${db}.jetton_wallets`,
    `CREATE TABLE IF NOT EXISTS ${db}.accounts_by_balance (bucket UInt16, account String) ENGINE = ReplacingMergeTree ORDER BY (bucket, account)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.accounts_by_balance_mv TO ${db}.accounts_by_balance AS SELECT toUInt16(length(toString(balance)) * 100 + toUInt8OrZero(substring(toString(balance), 1, 2))) AS bucket, account FROM ${db}.account_states`,
    `INSERT INTO ${db}.accounts_by_balance SELECT toUInt16(length(toString(balance)) * 100 + toUInt8OrZero(substring(toString(balance), 1, 2))) AS bucket, account FROM ${db}.account_states_latest`,
    `INSERT INTO ${db}.accounts_by_balance SELECT toUInt16(length(toString(balance)) * 100 + toUInt8OrZero(substring(toString(balance), 1, 2))) AS bucket, account FROM ${db}.account_states WHERE account IN (SELECT account FROM ${db}.account_states_latest WHERE mc_block_seqno > (SELECT max(mc_seqno) FROM ${db}.index_watermark))`,
  ],
};
