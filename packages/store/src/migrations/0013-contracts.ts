import type { Migration } from './migration.js';

/**
 * State the pipeline derives from DNS items, multisig v2 wallets and orders, vesting wallets and NFT
 * sale/auction contracts (issue 14). Unlike migration 9's state tables each keeps every version, keyed
 * (address, last_trans_lt) like `account_states`: a replay stores a version once, and a read at the
 * watermark takes each contract's newest version at or below it. Other access paths are narrow lookup
 * tables filled by views inside the writer's INSERT; keyed by a value that changes (a DNS wallet, a
 * signer), a lookup row names a candidate and the contract's version at the watermark decides. Amounts
 * and seqnos are decimal strings; a null address is ''.
 */
export const migration: Migration = {
  version: 13,
  name: 'contracts: DNS entries, multisig wallets and orders, vesting wallets, NFT sales and auctions (every version), with their lookups',
  statements: (db) => [
    `CREATE TABLE IF NOT EXISTS ${db}.dns_entries (address String, collection_address String, owner_address String, item_index String, domain String, dns_next_resolver String, dns_wallet String, dns_site_adnl String, dns_storage_bag_id String, code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.multisig_wallets (address String, next_order_seqno String, threshold UInt16, signers Array(String), proposers Array(String), code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.multisig_orders (address String, multisig_address String, order_seqno String, initialized UInt8, threshold UInt16, sent_for_execution UInt8, signers Array(String), approvals_mask String, approvals_num UInt16, expiration_date UInt64, order_boc String, code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.vesting_contracts (address String, start_time UInt64, total_duration UInt32, unlock_period UInt32, cliff_duration UInt32, total_amount String, sender_address String, owner_address String, whitelist Array(String), code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_sales (address String, type String, nft_address String, nft_owner_address String, marketplace_address String, created_at UInt32, details String, code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) SETTINGS index_granularity = 256`,
    `CREATE TABLE IF NOT EXISTS ${db}.dns_entries_by_wallet (dns_wallet String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (dns_wallet, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.dns_entries_by_wallet_mv TO ${db}.dns_entries_by_wallet AS SELECT dns_wallet, address, last_trans_lt, mc_block_seqno FROM ${db}.dns_entries WHERE dns_wallet != ''`,
    `CREATE TABLE IF NOT EXISTS ${db}.dns_entries_by_domain (domain String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (domain, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.dns_entries_by_domain_mv TO ${db}.dns_entries_by_domain AS SELECT domain, address, last_trans_lt, mc_block_seqno FROM ${db}.dns_entries WHERE domain != ''`,
    `CREATE TABLE IF NOT EXISTS ${db}.multisig_wallets_by_party (party String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (party, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.multisig_wallets_by_party_mv TO ${db}.multisig_wallets_by_party AS SELECT party, address, last_trans_lt, mc_block_seqno FROM ${db}.multisig_wallets ARRAY JOIN arrayConcat(signers, proposers) AS party`,
    `CREATE TABLE IF NOT EXISTS ${db}.multisig_orders_by_multisig (multisig_address String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (multisig_address, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.multisig_orders_by_multisig_mv TO ${db}.multisig_orders_by_multisig AS SELECT multisig_address, address, last_trans_lt, mc_block_seqno FROM ${db}.multisig_orders`,
    `CREATE TABLE IF NOT EXISTS ${db}.vesting_by_party (party String, role String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (party, role, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.vesting_by_party_mv TO ${db}.vesting_by_party AS SELECT party, role, address, last_trans_lt, mc_block_seqno FROM ${db}.vesting_contracts ARRAY JOIN arrayConcat([owner_address, sender_address], whitelist) AS party, arrayConcat(['owner', 'sender'], arrayMap(x -> 'whitelist', whitelist)) AS role WHERE party != ''`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_sales_by_nft (nft_address String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (nft_address, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.nft_sales_by_nft_mv TO ${db}.nft_sales_by_nft AS SELECT nft_address, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_sales`,
  ],
};
