import { ident } from './sql.js';

/**
 * Migration 13 (issue 14): state the pipeline derives from DNS items, multisig v2 wallets and
 * orders, vesting wallets and NFT sale/auction contracts. Unlike migration 9's state tables each
 * keeps every version, keyed (address, last_trans_lt) like `account_states`: a replay stores a
 * version once, and a read at the watermark takes each contract's newest version at or below it
 * (a later version never hides it). Other access paths are narrow lookup tables filled by views
 * inside the writer's INSERT; keyed by a value that changes (a DNS wallet, a signer), a lookup row
 * names a candidate and the contract's version at the watermark decides. Amounts and seqnos are
 * decimal strings; a null address is ''.
 */
export function contractTables(database: string): string[] {
  const db = ident(database);
  const granularity = 'SETTINGS index_granularity = 256';
  const state = 'code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32';
  const version = 'address String, last_trans_lt UInt64, mc_block_seqno UInt32';
  const main = (table: string, columns: string) => `CREATE TABLE IF NOT EXISTS ${db}.${table} (address String, ${columns}, ${state}) ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) ${granularity}`;
  const views: [table: string, columns: string, order: string, select: string][] = [
    ['dns_entries_by_wallet', `dns_wallet String, ${version}`, 'dns_wallet, address, last_trans_lt', `SELECT dns_wallet, address, last_trans_lt, mc_block_seqno FROM ${db}.dns_entries WHERE dns_wallet != ''`],
    ['dns_entries_by_domain', `domain String, ${version}`, 'domain, address, last_trans_lt', `SELECT domain, address, last_trans_lt, mc_block_seqno FROM ${db}.dns_entries WHERE domain != ''`],
    ['multisig_wallets_by_party', `party String, ${version}`, 'party, address, last_trans_lt', `SELECT party, address, last_trans_lt, mc_block_seqno FROM ${db}.multisig_wallets ARRAY JOIN arrayConcat(signers, proposers) AS party`],
    ['multisig_orders_by_multisig', `multisig_address String, ${version}`, 'multisig_address, address, last_trans_lt', `SELECT multisig_address, address, last_trans_lt, mc_block_seqno FROM ${db}.multisig_orders`],
    ['vesting_by_party', `party String, role String, ${version}`, 'party, role, address, last_trans_lt', `SELECT party, role, address, last_trans_lt, mc_block_seqno FROM ${db}.vesting_contracts ARRAY JOIN arrayConcat([owner_address, sender_address], whitelist) AS party, arrayConcat(['owner', 'sender'], arrayMap(x -> 'whitelist', whitelist)) AS role WHERE party != ''`],
    ['nft_sales_by_nft', `nft_address String, ${version}`, 'nft_address, address, last_trans_lt', `SELECT nft_address, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_sales`],
  ];
  return [
    main('dns_entries', 'collection_address String, owner_address String, item_index String, domain String, dns_next_resolver String, dns_wallet String, dns_site_adnl String, dns_storage_bag_id String'),
    main('multisig_wallets', 'next_order_seqno String, threshold UInt16, signers Array(String), proposers Array(String)'),
    main('multisig_orders', 'multisig_address String, order_seqno String, initialized UInt8, threshold UInt16, sent_for_execution UInt8, signers Array(String), approvals_mask String, approvals_num UInt16, expiration_date UInt64, order_boc String'),
    main('vesting_contracts', 'start_time UInt64, total_duration UInt32, unlock_period UInt32, cliff_duration UInt32, total_amount String, sender_address String, owner_address String, whitelist Array(String)'),
    main('nft_sales', 'type String, nft_address String, nft_owner_address String, marketplace_address String, created_at UInt32, details String'),
    ...views.flatMap(([table, columns, order, select]) => [
      `CREATE TABLE IF NOT EXISTS ${db}.${table} (${columns}) ENGINE = ReplacingMergeTree ORDER BY (${order})`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS ${select}`,
    ]),
  ];
}

/** The tables `writeBatch` fills from account states (their lookups are filled by views). */
export const CONTRACT_TABLES = ['dns_entries', 'multisig_wallets', 'multisig_orders', 'vesting_contracts', 'nft_sales'] as const;

/**
 * Migration 16: NFT sales by seller (`nft_owner_address`), for `/nft/items?owner_address=…&include_on_sale`
 * (the items an owner has listed); filled by a view as migration 13's lookups, backfilled from the
 * sales stored before it.
 */
export function nftSalesBySellerTable(database: string): string[] {
  const db = ident(database);
  const rows = `SELECT nft_owner_address, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_sales WHERE nft_owner_address != ''`;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.nft_sales_by_seller (nft_owner_address String, address String, last_trans_lt UInt64, mc_block_seqno UInt32) ENGINE = ReplacingMergeTree ORDER BY (nft_owner_address, address, last_trans_lt)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.nft_sales_by_seller_mv TO ${db}.nft_sales_by_seller AS ${rows}`,
    `INSERT INTO ${db}.nft_sales_by_seller ${rows}`,
  ];
}
