import type { Store } from '../client.js';
import { readHotDnsCandidates } from '../hot/facts.js';
import { str, strList, strPairList } from '../sql.js';
import { askHotTier, type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlPage, sqlWhere } from './scope.js';

/*
 * Reads of the contract tables (migration 13, contract-schema.ts): each contract's newest version at
 * or below the watermark. A filter on a value that changes (a DNS wallet, a signer, a vesting party)
 * first names candidates on its lookup table; the candidate's version at the watermark decides.
 * Rows are returned as stored ('' for a null address, arrays as arrays); the API shapes them.
 */

export type ContractRow = Record<string, string | number | string[]>;

const inList = (column: string, values: readonly string[] | undefined) => (values && values.length > 0 ? [`${column} IN ${strList(values)}`] : []);
/** Versions the scope serves (callers checked that it has a watermark). */
const served = (scope: ReadScope) => servedSeqnos('mc_block_seqno', scope.watermark!, scope.floor);

/** The newest version at the watermark of each contract of `table` among those `where` selects. */
function latest(store: Store, table: string, where: string[], scope: ReadScope): string {
  return `SELECT * FROM ${store.database}.${table} ${sqlWhere([...where, served(scope)])} ORDER BY address, last_trans_lt DESC LIMIT 1 BY address`;
}

/** `address IN (...)` of the contracts a lookup table names for `conditions`. */
function candidates(store: Store, lookup: string, conditions: string[], scope: ReadScope): string {
  return `address IN (SELECT address FROM ${store.database}.${lookup} ${sqlWhere([...conditions, served(scope)])})`;
}

async function rows(store: Store, scope: ReadScope, sql: string): Promise<ContractRow[]> {
  return store.query<ContractRow>(sql, scope.query);
}

/** DNS entries whose wallet record is `wallet`, or the entry of `domain`; ordered by (length(domain), domain). */
export async function readDnsEntries(store: Store, scope: ReadScope, f: { wallet?: string; domain?: string }, page: Pick<Page, 'limit' | 'offset'>): Promise<ContractRow[]> {
  if (scope.watermark === null) return [];
  const [lookup, column, value] = f.wallet !== undefined ? ['dns_entries_by_wallet', 'dns_wallet', f.wallet] : ['dns_entries_by_domain', 'domain', f.domain ?? ''];
  const inner = latest(store, 'dns_entries', [candidates(store, lookup, [`${column} = ${str(value)}`], scope)], scope);
  return rows(store, scope, `SELECT * FROM (${inner}) WHERE ${column} = ${str(value)} ORDER BY length(domain), domain, address ${sqlPage(page)}`);
}

/** Multisig wallets by address, or where `party` is a signer or proposer; ordered by address. */
export async function readMultisigWallets(store: Store, scope: ReadScope, f: { address?: string[]; party?: string[] }, page: Page): Promise<ContractRow[]> {
  if (scope.watermark === null) return [];
  const where = [...inList('address', f.address), ...(f.party?.length ? [candidates(store, 'multisig_wallets_by_party', inList('party', f.party), scope)] : [])];
  const outer = f.party?.length ? `WHERE hasAny(arrayConcat(signers, proposers), [${f.party.map(str).join(', ')}])` : '';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'multisig_wallets', where, scope)}) ${outer} ORDER BY address ${sqlDirection(page.sort)} ${sqlPage(page)}`);
}

/** Multisig orders by address or by their multisig; ordered by (multisig, order seqno). */
export async function readMultisigOrders(store: Store, scope: ReadScope, f: { address?: string[]; multisig?: string[] }, page: Page): Promise<ContractRow[]> {
  if (scope.watermark === null) return [];
  const where = [...inList('address', f.address), ...(f.multisig?.length ? [candidates(store, 'multisig_orders_by_multisig', inList('multisig_address', f.multisig), scope)] : [])];
  const dir = sqlDirection(page.sort);
  return rows(store, scope, `SELECT * FROM (${latest(store, 'multisig_orders', where, scope)}) ORDER BY multisig_address ${dir}, length(order_seqno) ${dir}, order_seqno ${dir}, address ${dir} ${sqlPage(page)}`);
}

/**
 * Vesting wallets by address, or where `wallet` is the owner or the sender (and, with
 * `whitelisted`, a whitelisted address); ordered by address. The lookup's answer needs no second
 * check on the version read: a vesting wallet's owner and sender never change and its whitelist
 * only grows (ton-blockchain/vesting-contract), so a candidate at the watermark still matches.
 */
export async function readVestingContracts(store: Store, scope: ReadScope, f: { address?: string[]; wallet?: string[]; whitelisted?: boolean }, page: Pick<Page, 'limit' | 'offset'>): Promise<ContractRow[]> {
  if (scope.watermark === null) return [];
  const roles = f.whitelisted ? ['owner', 'sender', 'whitelist'] : ['owner', 'sender'];
  const where = [...inList('address', f.address), ...(f.wallet?.length ? [candidates(store, 'vesting_by_party', [...inList('party', f.wallet), ...inList('role', roles)], scope)] : [])];
  return rows(store, scope, `SELECT * FROM (${latest(store, 'vesting_contracts', where, scope)}) ORDER BY address ${sqlPage(page)}`);
}

/** NFT sale and auction contracts by address, ordered by address. */
export async function readNftSales(store: Store, scope: ReadScope, addresses: readonly string[]): Promise<ContractRow[]> {
  if (scope.watermark === null || addresses.length === 0) return [];
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_sales', inList('address', addresses), scope)}) ORDER BY address`);
}

/**
 * Of `items` (an NFT and its owner at the watermark), those whose owner is a sale or auction contract
 * indexed as selling that very NFT: the sale rows at the watermark (a sale's NFT never changes, so the
 * contract's newest version decides). Found by key: the owners are the sale addresses.
 */
export async function readSalesOfItems(store: Store, scope: ReadScope, items: readonly { nft: string; owner: string }[]): Promise<ContractRow[]> {
  const owned = items.filter((i) => i.owner !== '');
  if (scope.watermark === null || owned.length === 0) return [];
  const inner = latest(store, 'nft_sales', inList('address', [...new Set(owned.map((i) => i.owner))]), scope);
  return rows(store, scope, `SELECT * FROM (${inner}) WHERE (address, nft_address) IN ${strPairList(owned.map((i) => [i.owner, i.nft]))} ORDER BY address`);
}

/**
 * The sale and auction contracts at the watermark whose seller (`nft_owner_address`) is one of
 * `sellers`, ordered by address; candidates named by `nft_sales_by_seller` (migration 16).
 */
export async function readNftSalesBySeller(store: Store, scope: ReadScope, sellers: readonly string[]): Promise<ContractRow[]> {
  if (scope.watermark === null || sellers.length === 0) return [];
  const named = candidates(store, 'nft_sales_by_seller', inList('nft_owner_address', sellers), scope);
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_sales', [named], scope)}) WHERE nft_owner_address IN ${strList(sellers)} ORDER BY address`);
}

/**
 * The DNS name of each of `addresses` that has one at the watermark: toncenter's address-book rule,
 * the shortest (then first) domain of a DNS item whose owner and wallet record are both the address.
 * One read for all of them, candidates named by `dns_entries_by_wallet`.
 */
export async function readDnsDomains(store: Store, scope: ReadScope, addresses: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let distinct = [...new Set(addresses)];
  const watermark = scope.watermark;
  if (watermark === null || distinct.length === 0) return found;
  // The tier names the few addresses a DNS item may point at; for the rest there is no domain.
  distinct = (await askHotTier(scope.hot, (tier) => readHotDnsCandidates(tier, distinct, watermark))) ?? distinct;
  if (distinct.length === 0) return found;
  const wallets = inList('dns_wallet', distinct);
  const inner = latest(store, 'dns_entries', [candidates(store, 'dns_entries_by_wallet', wallets, scope)], scope);
  const got = await store.query<{ dns_wallet: string; domain: string }>(
    `SELECT dns_wallet, domain FROM (${inner}) ${sqlWhere([...wallets, 'owner_address = dns_wallet', "domain != ''"])} ORDER BY dns_wallet, length(domain), domain LIMIT 1 BY dns_wallet`,
    pointRead(scope),
  );
  for (const r of got) found.set(r.dns_wallet, r.domain);
  return found;
}
