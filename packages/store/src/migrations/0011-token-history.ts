import type { Migration } from './migration.js';

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
