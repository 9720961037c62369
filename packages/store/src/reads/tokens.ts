import type { Store } from '../client.js';
import { str, strList, uint } from '../sql.js';
import { type Page, type ReadScope, sqlDirection, sqlPage, sqlWhere } from './scope.js';

/*
 * Reads of the token tables (migration 9, token-schema.ts). State tables hold one row per contract
 * version: a read takes each contract's latest row at or below the watermark (`LIMIT 1 BY address`
 * after ordering by lt), on the lookup table whose key the filter names. Events are found by key
 * (lt, hash) on their lookup tables, then read from the main table. Rows are returned as stored
 * (strings for amounts, '' for a null address); the API shapes them.
 */

export type Row = Record<string, string | number>;
const list = (column: string, values: readonly string[] | undefined) => (values && values.length > 0 ? [`${column} IN ${strList(values)}`] : []);

/** Latest version of each contract among `table`'s rows matching `where`, at or below the watermark. */
function latest(store: Store, table: string, columns: string, where: string[], watermark: number): string {
  return `SELECT ${columns} FROM ${store.database}.${table} ${sqlWhere([...where, `mc_block_seqno <= ${uint(watermark)}`])} ORDER BY address, last_trans_lt DESC LIMIT 1 BY address`;
}

async function rows(store: Store, scope: ReadScope, sql: string): Promise<Row[]> {
  return store.query<Row>(sql, scope.query);
}

export type JettonWalletFilter = { address?: string[]; owner?: string[]; jetton?: string[]; excludeZero?: boolean };

const WALLET_COLUMNS = 'address, jetton, owner, balance, last_trans_lt, mc_block_seqno';

/**
 * Jetton wallets. `sort` orders by balance (then address); without it by address. A filter by owner
 * reads `jetton_wallets_by_owner`, by jetton `jetton_wallets_by_jetton` (holders of a jetton are a key
 * range); code and data hashes come from `jetton_wallets` for the page only.
 */
export async function readJettonWallets(store: Store, scope: ReadScope, f: JettonWalletFilter, page: Pick<Page, 'limit' | 'offset'> & { sort?: Page['sort'] }): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const table = f.owner?.length ? 'jetton_wallets_by_owner' : f.jetton?.length ? 'jetton_wallets_by_jetton' : 'jetton_wallets';
  const where = [...list('owner', f.owner), ...list('jetton', f.jetton), ...list('address', f.address)];
  const outer = f.excludeZero ? "WHERE balance != '0'" : '';
  const order = page.sort ? `length(balance) ${sqlDirection(page.sort)}, balance ${sqlDirection(page.sort)}, address ASC` : f.owner?.length ? 'owner ASC, address ASC' : 'address ASC';
  const found = await rows(store, scope, `SELECT * FROM (${latest(store, table, WALLET_COLUMNS, where, scope.watermark)}) ${outer} ORDER BY ${order} ${sqlPage(page)}`);
  if (found.length === 0) return found;
  const hashes = await rows(store, scope, latest(store, 'jetton_wallets', 'address, code_hash, data_hash', list('address', found.map((r) => String(r.address))), scope.watermark));
  const byAddress = new Map(hashes.map((h) => [h.address, h]));
  return found.map((r) => ({ ...r, code_hash: byAddress.get(r.address)?.code_hash ?? '', data_hash: byAddress.get(r.address)?.data_hash ?? '' }));
}

/** Jetton masters by address or admin; ordered by address. */
export async function readJettonMasters(store: Store, scope: ReadScope, f: { address?: string[]; admin?: string[] }, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const where = [...list('address', f.address)];
  const outer = f.admin?.length ? `WHERE admin_address IN ${strList(f.admin)}` : '';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'jetton_masters', '*', where, scope.watermark)}) ${outer} ORDER BY address ${sqlPage(page)}`);
}

/** NFT collections by address or owner; ordered by address. */
export async function readNftCollections(store: Store, scope: ReadScope, f: { address?: string[]; owner?: string[] }, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const outer = f.owner?.length ? `WHERE owner_address IN ${strList(f.owner)}` : '';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_collections', '*', list('address', f.address), scope.watermark)}) ${outer} ORDER BY address ${sqlPage(page)}`);
}

export type NftItemFilter = { address?: string[]; owner?: string[]; collection?: string[]; index?: string[]; byLastLt?: boolean };

/**
 * NFT items. By collection: `nft_items_by_collection` (ordered by index); by owner:
 * `nft_items_by_owner` names candidates (an item that changed owner keeps its old row there) and the
 * item's latest row decides. Ordered by (owner,) collection, index, or by last transaction lt.
 */
export async function readNftItems(store: Store, scope: ReadScope, f: NftItemFilter, page: Pick<Page, 'limit' | 'offset'>): Promise<Row[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const candidates = f.owner?.length
    ? [`address IN (SELECT address FROM ${db}.nft_items_by_owner ${sqlWhere([...list('owner_address', f.owner), ...list('collection_address', f.collection)])})`]
    : f.collection?.length
      ? [`address IN (SELECT address FROM ${db}.nft_items_by_collection ${sqlWhere([...list('collection_address', f.collection), ...list('item_index', f.index)])})`]
      : [];
  const outer = [...list('owner_address', f.owner), ...list('collection_address', f.collection), ...list('item_index', f.index)];
  const order = f.byLastLt ? 'last_trans_lt DESC, address ASC' : f.owner?.length ? 'owner_address, collection_address, length(item_index), item_index, address' : 'collection_address, length(item_index), item_index, address';
  return rows(store, scope, `SELECT * FROM (${latest(store, 'nft_items', '*', [...candidates, ...list('address', f.address)], scope.watermark)}) ${sqlWhere(outer)} ORDER BY ${order} ${sqlPage(page)}`);
}

/** Which token event table, its lookup by party and by token contract, and the party roles. */
export type EventKind = 'jetton_transfers' | 'jetton_burns' | 'nft_transfers';

export type EventFilter = {
  /** Parties: owners (transfers: source or destination, by `roles`), an NFT or a Jetton wallet. */
  accounts?: string[];
  roles?: string[];
  /** The Jetton master or NFT collection. */
  token?: string;
  startUtime?: number;
  endUtime?: number;
  startLt?: string;
  endLt?: string;
  excludeAborted?: boolean;
  /** A second party filter applied on the main rows (column, values), e.g. jetton_wallet with owner. */
  also?: [column: string, values: string[]];
};

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
    `mc_block_seqno <= ${uint(scope.watermark)}`,
    ...(f.startUtime !== undefined ? [`transaction_now >= ${uint(f.startUtime)}`] : []),
    ...(f.endUtime !== undefined ? [`transaction_now <= ${uint(f.endUtime)}`] : []),
    ...(f.startLt !== undefined ? [`transaction_lt >= ${uint(f.startLt)}`] : []),
    ...(f.endLt !== undefined ? [`transaction_lt <= ${uint(f.endLt)}`] : []),
    ...(f.excludeAborted ? ['transaction_aborted = 0'] : []),
  ];
  const token = f.token === undefined ? [] : [`${TOKEN_COLUMN[kind]} = ${str(f.token)}`];
  let keys: string | null = null;
  if (f.accounts?.length) {
    keys = `SELECT transaction_lt, transaction_hash FROM ${db}.${kind}_by_account ${sqlWhere([...list('account', f.accounts), ...list('role', f.roles), ...token, ...common])}`;
  } else if (f.token !== undefined) {
    keys = `SELECT transaction_lt, transaction_hash FROM ${db}.${BY_TOKEN[kind]} ${sqlWhere([...token, ...common])}`;
  }
  const where = [...common, ...token, ...(f.also ? list(f.also[0], f.also[1]) : []), ...(keys ? [`(transaction_lt, transaction_hash) IN (${keys})`] : [])];
  return rows(store, scope, `SELECT * FROM ${db}.${kind} ${sqlWhere(where)} ORDER BY ${order} LIMIT 1 BY transaction_hash ${sqlPage(page)}`);
}

/** Interfaces of code hashes (from `contract_interfaces`). */
export async function readCodeInterfaces(store: Store, scope: ReadScope, codeHashes: readonly string[]): Promise<Map<string, { interfaces: string[]; methods: number[] }>> {
  const found = new Map<string, { interfaces: string[]; methods: number[] }>();
  if (codeHashes.length === 0) return found;
  const got = await store.query<{ code_hash: string; interfaces: string[]; methods: number[] }>(`SELECT code_hash, interfaces, methods FROM ${store.database}.contract_interfaces WHERE code_hash IN ${strList([...new Set(codeHashes)])} LIMIT 1 BY code_hash`, scope.query);
  for (const r of got) found.set(r.code_hash, { interfaces: r.interfaces, methods: r.methods.map(Number) });
  return found;
}
