import type { Migration } from './migration.js';

/**
 * NFT sales by seller (`nft_owner_address`), for `/nft/items?owner_address=…&include_on_sale` (the items
 * an owner has listed); filled by a view as migration 13's lookups, backfilled from the sales stored
 * before it.
 */
export const migration: Migration = {
  version: 16,
  name: 'NFT sales by seller (the items an owner has put on sale)',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.nft_sales_by_seller (nft_owner_address String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (nft_owner_address, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.nft_sales_by_seller_mv TO ${db}.nft_sales_by_seller AS SELECT nft_owner_address, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_sales WHERE nft_owner_address != ''`,
    `INSERT INTO ${db}.nft_sales_by_seller SELECT nft_owner_address, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_sales WHERE nft_owner_address != ''`,
  ],
};
