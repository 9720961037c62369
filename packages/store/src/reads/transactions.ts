import type { MessageRow, TransactionRow } from '@tonstream/records';
import type { Store } from '../client.js';
import { accountLtList, int32, strList, uint } from '../sql.js';
import { MESSAGE_COLUMNS, type MessageColumns, storedTransaction, TRANSACTION_COLUMNS, type TransactionColumns, wholeMessages } from '../transaction-facts.js';
import { readMessageRecords } from './message-records.js';
import { type MessageFilter, transactionsWithMessage } from './messages.js';
import type { HotTier } from '../hot/layout.js';
import { hasTransactionSlice, readHotAccountPage, readHotMcBlockPage, readHotTransactionsByHash } from '../hot/transactions.js';
import { askHotTier, type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlWhere, uniquePage } from './scope.js';

/** Filters of `/api/v3/transactions`; every field optional, all ANDed. Bounds are inclusive. */
export type TransactionFilter = {
  /** Of the block holding the transaction. */
  workchain?: number;
  /** Unsigned 64-bit, as the `shard` column holds it. */
  shard?: bigint;
  /** Block seqno. */
  seqno?: number;
  /** Committed by this masterchain block, via `transactions_by_mc_seqno`. */
  mcSeqno?: number;
  /** Raw upper-case addresses. */
  accounts?: string[];
  /** Standard base64 hashes, via `transactions_by_hash`. */
  hashes?: string[];
  lt?: bigint;
  startUtime?: number;
  endUtime?: number;
  startLt?: bigint;
  endLt?: bigint;
  /** Having a message row that matches (its in message for direction in, an out message for out). */
  message?: MessageFilter;
};

/**
 * Allow-listed orders: `lt` (toncenter's default: lt, then account ascending) and `now` (when a
 * utime bound is given: now, lt, account).
 */
const ORDERS = {
  lt: (d: string) => `lt ${d}, account ASC`,
  now: (d: string) => `now ${d}, lt ${d}, account ASC`,
} as const;
export type TransactionOrder = keyof typeof ORDERS;

/**
 * Transactions at or below the watermark matching `filter`, one page, with their BoCs. A row derived
 * from its BoC (migration 18) carries its messages whole; one read from its record text names them by
 * hash (readTransactionMessages joins both). One query in two steps: the page's keys (account, lt)
 * from narrow columns, then the records of those keys only. Ordering whole rows would read the record
 * of every matching row (all of a busy account's, all of a masterchain block's), most of the bytes of
 * the table (measurements: migration 6).
 */
export async function readTransactions(store: Store, scope: ReadScope, filter: TransactionFilter, page: Page & { order: TransactionOrder }): Promise<TransactionRow[]> {
  const w = scope.watermark;
  if (w === null) return [];
  if ((filter.accounts && filter.accounts.length === 0) || (filter.hashes && filter.hashes.length === 0)) return [];
  if (filter.message?.hashes && filter.message.hashes.length === 0) return [];
  const held = await askHotTier(scope.hot, (tier) => readHeldTransactions(tier, w, filter, page));
  if (held) return held.map(storedTransaction);
  const db = store.database;
  const order = ORDERS[page.order](sqlDirection(page.sort));
  const read = async (keys: string, point = !scans(filter)) => {
    const rows = await store.query<TransactionColumns>(
      // Rows of one key are one fact (replays write it again): any of them will do.
      `SELECT ${TRANSACTION_COLUMNS} FROM ${db}.transactions WHERE (account, lt) IN (${keys}) ORDER BY ${order} LIMIT 1 BY account, lt`,
      point ? pointRead(scope) : scope.query,
    );
    return rows.map(storedTransaction);
  };
  const served = servedSeqnos('mc_block_seqno', w, scope.floor);
  if (!chainWide(filter) || page.order !== 'lt') return read(pageKeys(store, served, filter, page, order));
  // The newest transactions of the chain: the page lies above some lt, found by trying the start lts
  // of masterchain blocks further and further back. A full page above a bound is the page (every row
  // below it sorts after); a short one may miss rows below it, so the next bound is tried.
  const bounds = page.sort === 'desc' && filter.endLt === undefined ? RECENT_MC_BLOCKS.filter((back) => w - back > 0) : [];
  for (const back of bounds) {
    const rows = await read(chainWideKeys(store, served, filter, page, order, w - back));
    if (rows.length === page.limit) return rows;
  }
  return read(chainWideKeys(store, served, filter, page, order, null), false);
}

/**
 * The page from the hot tier's transaction slice, for the filters it keeps lists for (hashes, one
 * account with lt bounds, one masterchain block; order lt); undefined when it cannot answer whole.
 */
async function readHeldTransactions(tier: HotTier, watermark: number, filter: TransactionFilter, page: Page & { order: TransactionOrder }) {
  if (!hasTransactionSlice(tier) || page.order !== 'lt') return undefined;
  const only = (...keys: (keyof TransactionFilter)[]) => Object.entries(filter).every(([k, v]) => keys.includes(k as keyof TransactionFilter) || v === undefined);
  if (filter.hashes && only('hashes')) return readHotTransactionsByHash(tier, filter.hashes, watermark, page);
  if (filter.accounts?.length === 1 && only('accounts', 'startLt', 'endLt')) return readHotAccountPage(tier, filter.accounts[0], watermark, page, filter);
  if (filter.mcSeqno !== undefined && only('mcSeqno')) return readHotMcBlockPage(tier, filter.mcSeqno, watermark, page);
  return undefined;
}

/** A filter whose keys are found by scanning columns (addresses of messages), not by a key or lookup table. */
function scans(filter: TransactionFilter): boolean {
  const m = filter.message;
  return m !== undefined && m.hashes === undefined && m.bodyHash === undefined && m.opcode === undefined;
}

/** How far back (masterchain blocks below the watermark) the lower lt bounds of a chain-wide page go before none. */
const RECENT_MC_BLOCKS = [16, 1024];

/** Masterchain blocks are the only blocks of workchain -1, shard 0x8000000000000000. */
export const MASTERCHAIN_SHARD = 0x8000000000000000n;

/** No filter that narrows by the main table's key (account, lt), a lookup table or one block: a page over the whole chain. */
function chainWide(filter: TransactionFilter): boolean {
  const oneBlock = filter.workchain !== undefined && filter.shard !== undefined && filter.seqno !== undefined;
  return !oneBlock && filter.accounts === undefined && filter.hashes === undefined && filter.mcSeqno === undefined && filter.message === undefined;
}

/**
 * Keys of a chain-wide page from `transactions_by_lt` (migration 7), ordered by lt: the lt conditions,
 * and the lower bound `lt >= start_lt of masterchain block fromMcSeqno` when given, are key ranges.
 * A bound block that is not stored gives max() = 0: no bound.
 */
function chainWideKeys(store: Store, served: string, filter: TransactionFilter, page: Page, order: string, fromMcSeqno: number | null): string {
  const db = store.database;
  const where = [served, ...blockConditions(filter), ...timeConditions(filter)];
  if (fromMcSeqno !== null) {
    where.push(`lt >= (SELECT max(start_lt) FROM ${db}.blocks WHERE workchain = -1 AND shard = ${uint(MASTERCHAIN_SHARD)} AND seqno = ${uint(fromMcSeqno)})`);
  }
  return uniquePage(store.cluster !== null, 'account, lt', `${db}.transactions_by_lt ${sqlWhere(where)}`, order, 'account, lt', page);
}

/** Conditions on the block columns, which `transactions` and `transactions_by_lt` share. */
function blockConditions(filter: TransactionFilter): string[] {
  const where: string[] = [];
  if (filter.workchain !== undefined) where.push(`workchain = ${int32(filter.workchain)}`);
  if (filter.shard !== undefined) where.push(`shard = ${uint(filter.shard)}`);
  if (filter.seqno !== undefined) where.push(`block_seqno = ${int32(filter.seqno)}`);
  return where;
}

/** Conditions on lt and now, which `transactions` and `transactions_by_lt` share. */
function timeConditions(filter: TransactionFilter): string[] {
  const where: string[] = [];
  if (filter.lt !== undefined) where.push(`lt = ${uint(filter.lt)}`);
  if (filter.startUtime !== undefined) where.push(`now >= ${uint(filter.startUtime)}`);
  if (filter.endUtime !== undefined) where.push(`now <= ${uint(filter.endUtime)}`);
  if (filter.startLt !== undefined) where.push(`lt >= ${uint(filter.startLt)}`);
  if (filter.endLt !== undefined) where.push(`lt <= ${uint(filter.endLt)}`);
  return where;
}

/** SQL selecting the (account, lt) keys of one page of `readTransactions`, deduplicated, in page order. */
function pageKeys(store: Store, served: string, filter: TransactionFilter, page: Page & { order: TransactionOrder }, order: string): string {
  const db = store.database;
  const onlyMcSeqno = Object.entries(filter).every(([k, v]) => k === 'mcSeqno' || v === undefined);
  if (filter.mcSeqno !== undefined && onlyMcSeqno && page.order === 'lt') {
    // The lookup table holds the page's order columns: the main table is read for the page's records only.
    return uniquePage(store.cluster !== null, 'account, lt', `${db}.transactions_by_mc_seqno WHERE mc_block_seqno = ${int32(filter.mcSeqno)} AND ${served}`, order, 'account, lt', page);
  }
  const where = [served, ...blockConditions(filter)];
  if (filter.workchain !== undefined && filter.shard !== undefined && filter.seqno !== undefined) {
    // One block: its committing masterchain seqno (blocks, by key) narrows the main table by key too.
    const block = `workchain = ${int32(filter.workchain)} AND shard = ${uint(filter.shard)} AND seqno = ${int32(filter.seqno)}`;
    where.push(`(account, lt) IN (SELECT account, lt FROM ${db}.transactions_by_mc_seqno WHERE mc_block_seqno IN (SELECT mc_block_seqno FROM ${db}.blocks WHERE ${block}))`);
  }
  if (filter.accounts) where.push(`account IN ${strList(filter.accounts)}`);
  // Lookup tables give the main table's key (account, lt), which it is ordered by.
  if (filter.hashes) where.push(`(account, lt) IN (SELECT account, lt FROM ${db}.transactions_by_hash WHERE hash IN ${strList(filter.hashes)})`);
  if (filter.mcSeqno !== undefined) {
    where.push(`(account, lt) IN (SELECT account, lt FROM ${db}.transactions_by_mc_seqno WHERE mc_block_seqno = ${int32(filter.mcSeqno)})`);
  }
  if (filter.message) where.push(transactionsWithMessage(db, served, filter.message));
  where.push(...timeConditions(filter));
  return uniquePage(store.cluster !== null, 'account, lt', `${db}.transactions ${sqlWhere(where)}`, order, 'account, lt', page);
}

/**
 * The BoCs (base64 of the transaction cell) of the transactions, by transaction hash: the ones they
 * carry, and for rows written before migration 18 from `transaction_bocs` (migration 12). Transactions
 * stored by a decoder older than that have none (absent).
 */
export async function readTransactionBocs(store: Store, scope: ReadScope, txs: readonly TransactionRow[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const older: TransactionRow[] = [];
  for (const t of txs) {
    if (t.boc !== undefined) found.set(t.hash, t.boc);
    else older.push(t);
  }
  if (older.length === 0) return found;
  const hashes = new Map(older.map((t) => [`${t.account} ${t.lt}`, t.hash]));
  const rows = await store.query<{ account: string; lt: string; boc: string }>(
    `SELECT account, lt, boc FROM ${store.database}.transaction_bocs WHERE (account, lt) IN ${accountLtList(older)} LIMIT 1 BY account, lt`,
    pointRead(scope),
  );
  for (const r of rows) {
    const hash = hashes.get(`${r.account} ${r.lt}`);
    if (hash !== undefined) found.set(hash, r.boc);
  }
  return found;
}

/** Key of a message of a transaction in the map `readTransactionMessages` returns. */
export function messageKey(txHash: string, direction: 'in' | 'out', hash: string): string {
  return `${txHash} ${direction} ${hash}`;
}

/**
 * The messages of the transactions (as `readTransactions` gives them), keyed by `messageKey`: those a
 * transaction derived from its BoC carries, and for the others their rows in `messages`, by hash (their
 * key). LIMIT 1 BY instead of FINAL (half the time alone; measurements: migration 6).
 */
export async function readTransactionMessages(store: Store, scope: ReadScope, txs: readonly TransactionRow[]): Promise<Map<string, MessageRow>> {
  const found = new Map<string, MessageRow>();
  const hashes = new Set<string>();
  const txHashes = new Set<string>();
  for (const t of txs) {
    const whole = wholeMessages(t);
    if (whole) {
      for (const m of whole) found.set(messageKey(t.hash, m.direction, m.hash), m);
      continue;
    }
    txHashes.add(t.hash);
    if (t.in_msg) hashes.add(t.in_msg.hash);
    for (const m of t.out_msgs) hashes.add(m.hash);
  }
  if (hashes.size === 0) return found;
  const rows = await store.query<MessageColumns>(
    `SELECT ${MESSAGE_COLUMNS.join(', ')} FROM ${store.database}.messages WHERE hash IN ${strList([...hashes])} AND tx_hash IN ${strList([...txHashes])} LIMIT 1 BY hash, direction, tx_hash`,
    pointRead(scope),
  );
  for (const m of await readMessageRecords(store, scope, rows)) found.set(messageKey(m.tx_hash, m.direction, m.hash), m);
  return found;
}
