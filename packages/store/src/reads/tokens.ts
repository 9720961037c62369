import type { Store } from '../client.js';
import { readHotTokenAddresses } from '../hot/facts.js';
import { str, strList, strPairList, uint } from '../sql.js';
import { bucketCandidates, rankedPage, withinBound } from './ranked.js';
import { askHotTier, type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlPage, sqlWhere, uniquePage } from './scope.js';

/*
 * Reads of the token tables (migrations 9 and 11, token-schema.ts). A state table keeps each
 * contract's latest version (once merged), its `_history` every version: a read takes each contract's
 * latest version at or below the watermark, from the state table, or from the history for the few
 * contracts whose latest version is above the watermark (`latest`). Lookup tables by owner, jetton or
 * collection name candidates; the contract's version decides. Events are found by key (lt, hash) on
 * their lookup tables, then read from the main table. Rows are returned as stored (strings for
 * amounts, '' for a null address); the API shapes them.
 */

export type Row = Record<string, string | number>;
const list = (column: string, values: readonly string[] | undefined) => (values && values.length > 0 ? [`${column} IN ${strList(values)}`] : []);

/**
 * Latest version at or below the watermark of each contract of `table` matching `where` (conditions
 * on the table's columns): its row in `table`, or for contracts with a version above the watermark
 * there, the latest of the earlier ones in `<table>_history`. `columns` include address and last_trans_lt.
 */
function latest(store: Store, table: string, columns: string, where: string[], scope: ReadScope): string {
  const db = store.database;
  const w = scope.watermark!;
  const served = servedSeqnos('mc_block_seqno', w, scope.floor);
  const newer = `SELECT address FROM ${db}.${table} ${sqlWhere([...where, `mc_block_seqno > ${uint(w)}`])}`;
  const current = `SELECT ${columns} FROM ${db}.${table} ${sqlWhere([...where, served])}`;
  const earlier = `SELECT ${columns} FROM ${db}.${table}_history ${sqlWhere([...where, served, `address IN (${newer})`])}`;
  return `SELECT ${columns} FROM (${current} UNION ALL ${earlier}) ORDER BY address, last_trans_lt DESC LIMIT 1 BY address`;
}

async function rows(store: Store, scope: ReadScope, sql: string): Promise<Row[]> {
  return store.query<Row>(sql, scope.query);
}

export type JettonWalletFilter = { address?: string[]; owner?: string[]; jetton?: string[]; excludeZero?: boolean };

const WALLET_COLUMNS = 'address, jetton, owner, balance, last_trans_lt, mc_block_seqno, code_hash, data_hash';

/**
 * Jetton wallets. `sort` orders by balance (then address); without it by address. A filter by owner
 * names candidates through `jetton_wallets_by_owner`, by jetton through `jetton_wallets_by_jetton`;
 * the holders of one jetton by balance are a ranked read (`readJettonHolders`).
 */
export async function readJettonWallets(store: Store, scope: ReadScope, f: JettonWalletFilter, page: Pick<Page, 'limit' | 'offset'> & { sort?: Page['sort'] }): Promise<Row[]> {
  if (scope.watermark === null) return [];
  if (page.sort && f.jetton?.length === 1 && !f.owner?.length && !f.address?.length) {
    return readJettonHolders(store, scope, f.jetton[0], { limit: page.limit, offset: page.offset, sort: page.sort }, f.excludeZero);
  }
  const db = store.database;
  const candidates = f.owner?.length
    ? [`address IN (SELECT address FROM ${db}.jetton_wallets_by_owner ${sqlWhere([...list('owner', f.owner), ...list('jetton', f.jetton)])})`]
    : f.jetton?.length
      ? [`address IN (SELECT address FROM ${db}.jetton_wallets_by_jetton ${sqlWhere(list('jetton', f.jetton))})`]
      : [];
  const outer = [...list('owner', f.owner), ...list('jetton', f.jetton), ...(f.excludeZero ? ["balance != '0'"] : [])];
  const order = page.sort ? `length(balance) ${sqlDirection(page.sort)}, balance ${sqlDirection(page.sort)}, address ASC` : f.owner?.length ? 'owner ASC, address ASC' : 'address ASC';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'jetton_wallets', WALLET_COLUMNS, [...candidates, ...list('address', f.address)], scope)}) ${sqlWhere(outer)} ORDER BY ${order} ${sqlPage(page)}`);
}

/**
 * The wallets of one jetton by balance (highest first with `desc`), ties by address: a ranked read
 * (reads/ranked.ts) over `jetton_wallets_by_balance`, so a top page reads the candidates of the top
 * buckets only, not every holder of the jetton. The page is cut on narrow columns (the candidates'
 * rows are scattered over the state table), then its rows are read by key from the history.
 */
export async function readJettonHolders(store: Store, scope: ReadScope, jetton: string, page: Page, excludeZero = false): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  // Bucket 100 holds exactly the zero balances (balanceBucket).
  const prefix = [`jetton_hash = cityHash64(${str(jetton)})`, ...(excludeZero ? ['bucket != 100'] : [])];
  const dir = sqlDirection(page.sort);
  const keys = await rankedPage(store, scope, { table: `${db}.jetton_wallets_by_balance`, prefix }, page.sort, page, (bound) => {
    const named = [`address IN (${bucketCandidates(`${db}.jetton_wallets_by_balance`, 'address', prefix, bound)})`];
    const outer = [`jetton = ${str(jetton)}`, ...withinBound('balance', bound), ...(excludeZero ? ["balance != '0'"] : [])];
    const narrow = latest(store, 'jetton_wallets', 'address, last_trans_lt, jetton, balance', named, scope);
    return store.query<{ address: string; last_trans_lt: string }>(`SELECT address, last_trans_lt FROM (${narrow}) ${sqlWhere(outer)} ORDER BY length(balance) ${dir}, balance ${dir}, address ASC ${sqlPage(page)}`, scope.query);
  });
  if (keys.length === 0) return [];
  const found = await rows(store, scope, `SELECT ${WALLET_COLUMNS} FROM ${db}.jetton_wallets_history WHERE (address, last_trans_lt) IN (${keys.map((k) => `(${str(k.address)}, ${uint(k.last_trans_lt)})`).join(', ')}) LIMIT 1 BY address`);
  const byAddress = new Map(found.map((r) => [r.address, r]));
  return keys.flatMap((k): Row[] => { const r = byAddress.get(k.address); return r ? [r] : []; });
}

/** Jetton masters by address or admin; ordered by address. */
export async function readJettonMasters(store: Store, scope: ReadScope, f: { address?: string[]; admin?: string[] }, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const where = [...list('address', f.address)];
  const outer = f.admin?.length ? `WHERE admin_address IN ${strList(f.admin)}` : '';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'jetton_masters', '*', where, scope)}) ${outer} ORDER BY address ${sqlPage(page)}`);
}

/** NFT collections by address or owner; ordered by address. */
export async function readNftCollections(store: Store, scope: ReadScope, f: { address?: string[]; owner?: string[] }, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const outer = f.owner?.length ? `WHERE owner_address IN ${strList(f.owner)}` : '';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_collections', '*', list('address', f.address), scope)}) ${outer} ORDER BY address ${sqlPage(page)}`);
}

/** An NFT listed on a sale or auction contract: the contract, the NFT, and its seller (the real owner). */
export type NftListing = { sale: string; nft: string; seller: string };

export type NftItemFilter = {
  address?: string[];
  owner?: string[];
  collection?: string[];
  index?: string[];
  byLastLt?: boolean;
  /** With `owner`: the owners' listings; an item still owned by its listing's contract counts as its seller's. */
  listings?: readonly NftListing[];
};

const strArray = (values: readonly string[]) => `[${values.map(str).join(', ')}]`;

/**
 * NFT items. By collection: `nft_items_by_collection` (ordered by index); by owner:
 * `nft_items_by_owner` names candidates (an item that changed owner keeps its old row there) and the
 * item's latest row decides. Ordered by (owner,) collection, index, or by last transaction lt. With
 * `listings`, an item whose owner at the watermark is its listing's contract is also the seller's,
 * and orders under the seller.
 */
export async function readNftItems(store: Store, scope: ReadScope, f: NftItemFilter, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const listings = f.owner?.length ? (f.listings ?? []) : [];
  const listed = listings.length > 0 ? ` OR address IN ${strList(listings.map((l) => l.nft))}` : '';
  const candidates = f.owner?.length
    ? [`(address IN (SELECT address FROM ${db}.nft_items_by_owner ${sqlWhere([...list('owner_address', f.owner), ...list('collection_address', f.collection)])})${listed})`]
    : f.collection?.length
      ? [`address IN (SELECT address FROM ${db}.nft_items_by_collection ${sqlWhere([...list('collection_address', f.collection), ...list('item_index', f.index)])})`]
      : [];
  const byOwner = f.owner?.length
    ? listings.length > 0
      ? [`(owner_address IN ${strList(f.owner)} OR (owner_address, address) IN ${strPairList(listings.map((l) => [l.sale, l.nft]))})`]
      : list('owner_address', f.owner)
    : [];
  const outer = [...byOwner, ...list('collection_address', f.collection), ...list('item_index', f.index)];
  const owner = listings.length > 0 ? `transform(owner_address, ${strArray(listings.map((l) => l.sale))}, ${strArray(listings.map((l) => l.seller))}, owner_address)` : 'owner_address';
  const order = f.byLastLt ? 'last_trans_lt DESC, address ASC' : f.owner?.length ? `${owner}, collection_address, length(item_index), item_index, address` : 'collection_address, length(item_index), item_index, address';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_items', '*', [...candidates, ...list('address', f.address)], scope)}) ${sqlWhere(outer)} ORDER BY ${order} ${sqlPage(page)}`);
}

/**
 * Which of `addresses` have ever been a token contract (a Jetton master or wallet, an NFT collection
 * or item) at or below the watermark: one key lookup per history table, so a response about plain
 * wallets (most of them) costs one cheap query for its `metadata`, not a read of every token table.
 * The lookups are scalar subqueries of one SELECT, not a UNION ALL: 18.16 runs a UNION ALL's branches
 * on threads of their own, which cost 3x the lookups (ClickHouse CPU per call, one address: 3.45 ms
 * as a UNION ALL, 1.10 ms as scalar subqueries, 1.05 ms as four queries).
 */
export async function readTokenAddresses(store: Store, scope: ReadScope, addresses: readonly string[]): Promise<string[]> {
  const watermark = scope.watermark;
  if (watermark === null || addresses.length === 0) return [];
  const hot = await askHotTier(scope.hot, (tier) => readHotTokenAddresses(tier, addresses, watermark));
  if (hot) return [...new Set(hot)].sort();
  const where = `WHERE address IN ${strList(addresses)} AND ${servedSeqnos('mc_block_seqno', watermark, scope.floor)}`;
  const tables = ['jetton_masters', 'jetton_wallets', 'nft_collections', 'nft_items'];
  const [row] = await store.query<Record<string, string[]>>(
    `SELECT ${tables.map((t) => `(SELECT groupArray(address) FROM ${store.database}.${t}_history ${where}) AS ${t}`).join(', ')}`,
    pointRead(scope),
  );
  return [...new Set(tables.flatMap((t) => row[t]))].sort();
}

/** Which token event table, its lookup by party and by token contract, and the party roles. */
export type EventKind = 'jetton_transfers' | 'jetton_burns' | 'nft_transfers';

export type EventFilter = {
  /** Owners: the senders or receivers of transfers (by `direction`), the owners of burnt Jettons. */
  owners?: string[];
  /** Of transfers with `owners`: received (`in`), sent (`out`) or both (the default). */
  direction?: 'in' | 'out';
  /** Jetton wallets (the sender's, of a transfer; the burnt one, of a burn) or NFT items; with `owners`, both hold. */
  tokenAccounts?: string[];
  /** The Jetton master or NFT collection. */
  token?: string;
  startUtime?: number;
  endUtime?: number;
  startLt?: string;
  endLt?: string;
  excludeAborted?: boolean;
};

/** How `<kind>_by_account` names each party (migrations/0009-tokens.ts), and the column holding the token account. */
const PARTIES: Record<EventKind, { sent: string; received: string; tokenAccount: { role: string; column: string } }> = {
  jetton_transfers: { sent: 'out', received: 'in', tokenAccount: { role: 'wallet', column: 'source_wallet' } },
  jetton_burns: { sent: 'owner', received: 'owner', tokenAccount: { role: 'wallet', column: 'jetton_wallet' } },
  nft_transfers: { sent: 'out', received: 'in', tokenAccount: { role: 'item', column: 'nft_address' } },
};

/** The `_by_account` lookup a filter starts from (accounts and their roles), and what the main rows must also match. */
function partyLookup(kind: EventKind, f: EventFilter): { accounts: string[]; roles: string[]; also: string[] } | undefined {
  const p = PARTIES[kind];
  if (f.owners?.length) {
    const roles = f.direction === 'in' ? [p.received] : f.direction === 'out' ? [p.sent] : [...new Set([p.sent, p.received])];
    return { accounts: f.owners, roles, also: list(p.tokenAccount.column, f.tokenAccounts) };
  }
  if (f.tokenAccounts?.length) return { accounts: f.tokenAccounts, roles: [p.tokenAccount.role], also: [] };
  return undefined;
}

const TOKEN_COLUMN: Record<EventKind, string> = { jetton_transfers: 'jetton_master', jetton_burns: 'jetton_master', nft_transfers: 'nft_collection' };
const BY_TOKEN: Record<EventKind, string> = { jetton_transfers: 'jetton_transfers_by_master', jetton_burns: 'jetton_burns_by_master', nft_transfers: 'nft_transfers_by_collection' };

/** Token events, newest first by default (lt, then hash); order switches to `now` when a utime bound is given. */
export async function readTokenEvents(store: Store, scope: ReadScope, kind: EventKind, f: EventFilter, page: Page): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const dir = sqlDirection(page.sort);
  const byTime = f.startUtime !== undefined || f.endUtime !== undefined;
  const order = `${byTime ? `transaction_now ${dir}, ` : ''}transaction_lt ${dir}, transaction_hash ${dir}`;
  const common = [
    servedSeqnos('mc_block_seqno', scope.watermark, scope.floor),
    ...(f.startUtime !== undefined ? [`transaction_now >= ${uint(f.startUtime)}`] : []),
    ...(f.endUtime !== undefined ? [`transaction_now <= ${uint(f.endUtime)}`] : []),
    ...(f.startLt !== undefined ? [`transaction_lt >= ${uint(f.startLt)}`] : []),
    ...(f.endLt !== undefined ? [`transaction_lt <= ${uint(f.endLt)}`] : []),
    ...(f.excludeAborted ? ['transaction_aborted = 0'] : []),
  ];
  const token = f.token === undefined ? [] : [`${TOKEN_COLUMN[kind]} = ${str(f.token)}`];
  const parties = partyLookup(kind, f);
  let keys: string | null = null;
  if (parties) {
    keys = `SELECT transaction_lt, transaction_hash FROM ${db}.${kind}_by_account ${sqlWhere([...list('account', parties.accounts), ...list('role', parties.roles), ...token, ...common])}`;
  } else if (f.token !== undefined) {
    keys = `SELECT transaction_lt, transaction_hash FROM ${db}.${BY_TOKEN[kind]} ${sqlWhere([...token, ...common])}`;
  }
  const where = [...common, ...token, ...(parties?.also ?? []), ...(keys ? [`(transaction_lt, transaction_hash) IN (${keys})`] : [])];
  return rows(store, scope, uniquePage(store.cluster !== null, '*', `${db}.${kind} ${sqlWhere(where)}`, order, 'transaction_hash', page));
}
