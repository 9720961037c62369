import { ident } from './sql.js';

/**
 * Migration 9: what the pipeline derives about tokens (issue 14). States (Jetton masters and
 * wallets, NFT collections and items) are one row per contract, ReplacingMergeTree(last_trans_lt)
 * by address: a replayed or older state never replaces a newer one. Events (Jetton transfers and
 * burns, NFT transfers) are keyed by their transaction, ordered by lt. Every other access path is a
 * narrow lookup table filled by a materialized view inside the writer's own INSERT (as migration 5),
 * carrying the columns its reads filter on; the per-party ones through ARRAY JOIN over the parties.
 * Amounts and indexes are decimal strings (Coins reach 2^120); ordered by value as (length, text).
 * A null address is ''.
 */
export function tokenTables(database: string): string[] {
  const db = ident(database);
  const granularity = 'SETTINGS index_granularity = 256';
  const state = 'code_hash String, data_hash String, last_trans_lt UInt64, mc_block_seqno UInt32';
  const tx = 'transaction_hash String, transaction_lt UInt64, transaction_now UInt32, transaction_aborted UInt8, mc_block_seqno UInt32';
  const txKey = 'transaction_lt UInt64, transaction_hash String, transaction_now UInt32, transaction_aborted UInt8, mc_block_seqno UInt32';
  const txCols = 'transaction_lt, transaction_hash, transaction_now, transaction_aborted, mc_block_seqno';
  const views: [table: string, columns: string, engine: string, select: string][] = [
    ['jetton_wallets_by_owner', 'owner String, jetton String, address String, balance String, last_trans_lt UInt64, mc_block_seqno UInt32', 'ReplacingMergeTree(last_trans_lt) ORDER BY (owner, jetton, address)', `SELECT owner, jetton, address, balance, last_trans_lt, mc_block_seqno FROM ${db}.jetton_wallets`],
    ['jetton_wallets_by_jetton', 'jetton String, address String, owner String, balance String, last_trans_lt UInt64, mc_block_seqno UInt32', 'ReplacingMergeTree(last_trans_lt) ORDER BY (jetton, address)', `SELECT jetton, address, owner, balance, last_trans_lt, mc_block_seqno FROM ${db}.jetton_wallets`],
    ['nft_items_by_collection', 'collection_address String, item_index String, address String, last_trans_lt UInt64, mc_block_seqno UInt32', 'ReplacingMergeTree(last_trans_lt) ORDER BY (collection_address, length(item_index), item_index, address)', `SELECT collection_address, item_index, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_items WHERE collection_address != ''`],
    // Keyed by owner, which changes: a row names a candidate, the item's current row decides.
    ['nft_items_by_owner', 'owner_address String, collection_address String, item_index String, address String, last_trans_lt UInt64, mc_block_seqno UInt32', 'ReplacingMergeTree(last_trans_lt) ORDER BY (owner_address, collection_address, length(item_index), item_index, address)', `SELECT owner_address, collection_address, item_index, address, last_trans_lt, mc_block_seqno FROM ${db}.nft_items WHERE owner_address != ''`],
    ['jetton_transfers_by_account', `account String, role String, jetton_master String, ${txKey}`, 'ReplacingMergeTree ORDER BY (account, transaction_lt, transaction_hash, role)', `SELECT account, role, jetton_master, ${txCols} FROM ${db}.jetton_transfers ARRAY JOIN [source, destination, source_wallet] AS account, ['out', 'in', 'wallet'] AS role WHERE account != ''`],
    ['jetton_transfers_by_master', `jetton_master String, ${txKey}`, 'ReplacingMergeTree ORDER BY (jetton_master, transaction_lt, transaction_hash)', `SELECT jetton_master, ${txCols} FROM ${db}.jetton_transfers`],
    ['jetton_burns_by_account', `account String, role String, jetton_master String, ${txKey}`, 'ReplacingMergeTree ORDER BY (account, transaction_lt, transaction_hash, role)', `SELECT account, role, jetton_master, ${txCols} FROM ${db}.jetton_burns ARRAY JOIN [owner, jetton_wallet] AS account, ['owner', 'wallet'] AS role`],
    ['jetton_burns_by_master', `jetton_master String, ${txKey}`, 'ReplacingMergeTree ORDER BY (jetton_master, transaction_lt, transaction_hash)', `SELECT jetton_master, ${txCols} FROM ${db}.jetton_burns`],
    ['nft_transfers_by_account', `account String, role String, nft_collection String, ${txKey}`, 'ReplacingMergeTree ORDER BY (account, transaction_lt, transaction_hash, role)', `SELECT account, role, nft_collection, ${txCols} FROM ${db}.nft_transfers ARRAY JOIN [old_owner, new_owner, nft_address] AS account, ['out', 'in', 'item'] AS role WHERE account != ''`],
    ['nft_transfers_by_collection', `nft_collection String, ${txKey}`, 'ReplacingMergeTree ORDER BY (nft_collection, transaction_lt, transaction_hash)', `SELECT nft_collection, ${txCols} FROM ${db}.nft_transfers WHERE nft_collection != ''`],
  ];
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.contract_interfaces (code_hash String, interfaces Array(String), methods Array(Int32)) ENGINE = ReplacingMergeTree ORDER BY code_hash`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_wallets (address String, jetton String, owner String, balance String, ${state}) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY address ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_masters (address String, total_supply String, mintable UInt8, admin_address String, jetton_content String, jetton_wallet_code_hash String, ${state}) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY address ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_collections (address String, owner_address String, next_item_index String, collection_content String, common_content String, ${state}) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY address ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_items (address String, init UInt8, item_index String, collection_address String, owner_address String, content String, individual_content String, ${state}) ENGINE = ReplacingMergeTree(last_trans_lt) ORDER BY address ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_transfers (${tx}, query_id String, amount String, source String, destination String, source_wallet String, jetton_master String, response_destination String, custom_payload String, forward_ton_amount String, forward_payload String) ENGINE = ReplacingMergeTree ORDER BY (transaction_lt, transaction_hash) ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_burns (${tx}, query_id String, amount String, owner String, jetton_wallet String, jetton_master String, response_destination String, custom_payload String) ENGINE = ReplacingMergeTree ORDER BY (transaction_lt, transaction_hash) ${granularity}`,
    `CREATE TABLE IF NOT EXISTS ${db}.nft_transfers (${tx}, query_id String, nft_address String, nft_collection String, old_owner String, new_owner String, response_destination String, custom_payload String, forward_amount String, forward_payload String) ENGINE = ReplacingMergeTree ORDER BY (transaction_lt, transaction_hash) ${granularity}`,
    ...views.flatMap(([table, columns, engine, select]) => [
      `CREATE TABLE IF NOT EXISTS ${db}.${table} (${columns}) ENGINE = ${engine}`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS ${select}`,
    ]),
  ];
}

/** The token tables `writeBatch` fills (their lookups are filled by views). */
export const TOKEN_TABLES = ['contract_interfaces', 'jetton_wallets', 'jetton_masters', 'nft_collections', 'nft_items', 'jetton_transfers', 'jetton_burns', 'nft_transfers'] as const;

/** The token state tables (one row per contract, the latest) that keep a history beside them. */
export const TOKEN_STATE_TABLES = ['jetton_wallets', 'jetton_masters', 'nft_collections', 'nft_items'] as const;

/**
 * A balance's rank bucket: decimal digits x 100 + its first two digits (one digit when it has one),
 * so buckets order as the balances do and a decade splits in 90. `value` is an SQL expression of a
 * decimal String. The same expression fills the tables and bounds the reads (reads/ranked.ts).
 */
export function balanceBucket(value: string): string {
  return `toUInt16(length(${value}) * 100 + toUInt8OrZero(substring(${value}, 1, 2)))`;
}

/**
 * Migration 11 (issue 14): token state history and the tables that rank by balance.
 *
 * `<state table>_history`: every stored version of each token contract, ordered (address,
 * last_trans_lt) as `account_states` beside `account_states_latest`. The state tables keep only a
 * contract's latest version once merged, so a version above the watermark would hide the one a read
 * at the watermark must serve; the history still has it. Filled by views inside the writer's INSERT.
 *
 * `jetton_wallets_by_balance` (jetton, bucket, wallet) and `accounts_by_balance` (bucket, account):
 * a row for every bucket a wallet's or account's balance has been in. ReplacingMergeTree by that key
 * (no version: a row only names a candidate), so a balance moving within its bucket adds nothing and
 * a row left behind in an old bucket is dropped when the candidate's state at the watermark is read.
 * Ordered by bucket, the richest wallets of a jetton are the last key range of its prefix: a top-N
 * read counts rows per bucket, reads the candidates of the top buckets only and their states by key.
 * (A ReplacingMergeTree by wallet cannot be ordered by balance, and 18.16 cannot read a key range in
 * order, so every ranked read of an address-ordered table sorts all of a jetton's wallets.)
 * The jetton is keyed by cityHash64(jetton): the bucket counts read 8 bytes a row, not a 66-byte
 * address; the state read checks the jetton itself.
 */
export function tokenHistoryTables(database: string): string[] {
  const db = ident(database);
  const granularity = 'SETTINGS index_granularity = 256';
  const history = TOKEN_STATE_TABLES.flatMap((table) => [
    `CREATE TABLE IF NOT EXISTS ${db}.${table}_history AS ${db}.${table} ENGINE = ReplacingMergeTree ORDER BY (address, last_trans_lt) ${granularity}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_history_mv TO ${db}.${table}_history AS SELECT * FROM ${db}.${table}`,
    // Versions stored before this migration (the latest of each contract once merged).
    `INSERT INTO ${db}.${table}_history SELECT * FROM ${db}.${table}`,
  ]);
  const wallets = `SELECT cityHash64(jetton) AS jetton_hash, ${balanceBucket('balance')} AS bucket, address FROM ${db}.jetton_wallets`;
  const accounts = (from: string) => `SELECT ${balanceBucket('toString(balance)')} AS bucket, account FROM ${db}.${from}`;
  return [
    ...history,
    `CREATE TABLE IF NOT EXISTS ${db}.jetton_wallets_by_balance (jetton_hash UInt64, bucket UInt16, address String) ENGINE = ReplacingMergeTree ORDER BY (jetton_hash, bucket, address)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.jetton_wallets_by_balance_mv TO ${db}.jetton_wallets_by_balance AS ${wallets}`,
    `INSERT INTO ${db}.jetton_wallets_by_balance ${wallets}`,
    `CREATE TABLE IF NOT EXISTS ${db}.accounts_by_balance (bucket UInt16, account String) ENGINE = ReplacingMergeTree ORDER BY (bucket, account)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.accounts_by_balance_mv TO ${db}.accounts_by_balance AS ${accounts('account_states')}`,
    // Each account's latest state, and every stored state of the accounts whose latest is above the
    // watermark (the state a read at the watermark serves may be any of those).
    `INSERT INTO ${db}.accounts_by_balance ${accounts('account_states_latest')}`,
    `INSERT INTO ${db}.accounts_by_balance ${accounts('account_states')} WHERE account IN (SELECT account FROM ${db}.account_states_latest WHERE mc_block_seqno > (SELECT max(mc_seqno) FROM ${db}.index_watermark))`,
  ];
}
