import type { MessageRow, TransactionRow } from '@tonstream/records';
import type { Store } from '../client.js';
import { str, strList, uint } from '../sql.js';
import { MESSAGE_COLUMNS, type MessageColumns } from '../transaction-facts.js';
import { readMessageRecords } from './message-records.js';
import { hasTransactionSlice, readHotMessagesByHash } from '../hot/transactions.js';
import { askHotTier, type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlPage, sqlWhere } from './scope.js';

/**
 * Filters of `/api/v3/messages` and `/api/v3/transactionsByMessage`; every field optional, all ANDed.
 * Bounds are inclusive. A message row is one side (in/out) of a message in one transaction.
 */
export type MessageFilter = {
  /** Standard base64; matches `hash` or the TEP-467 `hash_norm`. */
  hashes?: string[];
  bodyHash?: string;
  /** Raw upper-case address; null means no address (external-in source, external-out destination). */
  source?: string | null;
  destination?: string | null;
  /** Unsigned 32-bit opcode. */
  opcode?: number;
  direction?: 'in' | 'out';
  /** On created_at; like SQL NULL in toncenter, any bound drops rows without one (external-in). */
  startUtime?: number;
  endUtime?: number;
  /** On created_lt; any bound drops rows without one (external-in). */
  startLt?: bigint;
  endLt?: bigint;
  /** Drop rows without the order column (external-in); `onlyExternals` keeps only those. */
  excludeExternals?: boolean;
  onlyExternals?: boolean;
};

/**
 * Allow-listed orders of /messages: by created_lt (or created_at when a utime bound is given), then
 * hash. As toncenter (PostgreSQL, NULLs largest), rows without the column (stored as 0: external-in)
 * sort after every other row ascending and before them descending.
 */
const ORDERS = {
  lt: (d: string) => `m_lt = 0 ${d}, m_lt ${d}, hash ${d}`,
  utime: (d: string) => `m_at = 0 ${d}, m_at ${d}, m_lt ${d}, hash ${d}`,
} as const;
export type MessageOrder = keyof typeof ORDERS;

/**
 * Conditions on the `messages` table for a filter (not the watermark). Hashes, body hash and opcode
 * narrow by the primary key (hash) through the lookup tables of migration 5: an `IN (subquery)` on
 * the key reads a few granules where an `OR` with another column, or a column alone, reads them all.
 * Addresses are columns of the same table, read by a scan (messages_by_account narrows only by the
 * account of the row's own transaction).
 */
function conditions(db: string, f: MessageFilter, order: MessageOrder): string[] {
  const where: string[] = [];
  const ltBounds: string[] = [];
  if (f.startLt !== undefined) ltBounds.push(`created_lt >= ${uint(f.startLt)}`);
  if (f.endLt !== undefined) ltBounds.push(`created_lt <= ${uint(f.endLt)}`);
  if (ltBounds.length > 0) ltBounds.push('created_lt > 0');
  const address = (v: string | null) => str(v ?? '');
  if (f.hashes) {
    const list = strList(f.hashes);
    where.push(`hash IN (SELECT arrayJoin([${f.hashes.map(str).join(', ')}]) UNION ALL SELECT hash FROM ${db}.messages_by_hash_norm WHERE hash_norm IN ${list})`);
  }
  if (f.bodyHash !== undefined) where.push(`hash IN (SELECT hash FROM ${db}.message_body_hashes WHERE body_hash = ${str(f.bodyHash)})`, `body_hash = ${str(f.bodyHash)}`);
  if (f.source !== undefined) where.push(`source = ${address(f.source)}`);
  if (f.destination !== undefined) where.push(`destination = ${address(f.destination)}`);
  if (f.opcode !== undefined) where.push(`hash IN (SELECT hash FROM ${db}.message_opcodes WHERE opcode = ${uint(f.opcode)})`, `opcode = ${uint(f.opcode)}`);
  if (f.direction !== undefined) where.push(`direction = ${str(f.direction)}`);
  where.push(...ltBounds);
  if (f.startUtime !== undefined) where.push(`created_at >= ${uint(f.startUtime)}`);
  if (f.endUtime !== undefined) where.push(`created_at <= ${uint(f.endUtime)}`);
  if (f.startUtime !== undefined || f.endUtime !== undefined) where.push('created_at > 0');
  const column = order === 'utime' ? 'created_at' : 'created_lt';
  if (f.excludeExternals) where.push(`${column} > 0`);
  if (f.onlyExternals) where.push(`${column} = 0`);
  return where;
}

/** A message of /messages: the record, and the transactions it is the in / out message of (when stored). */
export type FoundMessage = { message: MessageRow; inTxHash: string | null; outTxHash: string | null };

/**
 * Messages at or below the watermark matching `filter`, one row per message hash (its in and out
 * sides grouped), one page. The GROUP BY already makes one row of a row's replayed copies, so no FINAL
 * (which made a lookup by hash 2-3x slower; measurements: migration 6).
 */
export async function readMessages(store: Store, scope: ReadScope, filter: MessageFilter, page: Page & { order: MessageOrder }): Promise<FoundMessage[]> {
  const watermark = scope.watermark;
  if (watermark === null || (filter.hashes && filter.hashes.length === 0)) return [];
  const hashes = filter.hashes;
  const byHashOnly = hashes !== undefined && page.order === 'lt' && Object.entries(filter).every(([k, v]) => k === 'hashes' || v === undefined);
  const held = byHashOnly ? await askHotTier(scope.hot, async (tier) => (hasTransactionSlice(tier) ? readHotMessagesByHash(tier, hashes, watermark, page) : undefined)) : undefined;
  if (held) return held;
  const db = store.database;
  const where = [servedSeqnos('mc_block_seqno', watermark, scope.floor), ...conditions(db, filter, page.order)];
  // Of the message's rows, one side's columns (the same row's: argMin by direction), to read its record by;
  // aliased apart, as a column's own name would stand for the aggregate inside the other aggregates.
  const side = MESSAGE_COLUMNS.filter((c) => c !== 'hash').map((c) => `argMin(${c}, direction) AS side_${c}`).join(', ');
  const rows = await store.query<Record<string, string>>(
    `SELECT hash, ${side}, anyIf(tx_hash, direction = 'in') AS in_tx, anyIf(tx_hash, direction = 'out') AS out_tx,
       any(created_lt) AS m_lt, any(created_at) AS m_at
     FROM ${db}.messages ${sqlWhere(where)} GROUP BY hash ORDER BY ${ORDERS[page.order](sqlDirection(page.sort))} ${sqlPage(page)}`,
    // By key through a lookup table: a point read; by address or time alone: a scan, on every thread.
    filter.hashes || filter.bodyHash !== undefined || filter.opcode !== undefined ? pointRead(scope) : scope.query,
  );
  const sides = rows.map((r) => Object.fromEntries(MESSAGE_COLUMNS.map((c) => [c, c === 'hash' ? r.hash : r[`side_${c}`]])) as MessageColumns);
  const messages = await readMessageRecords(store, scope, sides);
  return rows.map((r, i) => ({ message: messages[i], inTxHash: r.in_tx || null, outTxHash: r.out_tx || null }));
}

/**
 * A condition on the `transactions` table: transactions that have a message row matching `filter`
 * among those `served` (servedSeqnos of mc_block_seqno)
 * (the in message for direction in, an out message for out). Its key (account, lt) comes from the
 * message row: the destination of an in message, the source of an out one, and tx_lt.
 */
export function transactionsWithMessage(db: string, served: string, filter: MessageFilter): string {
  const where = [served, ...conditions(db, filter, 'lt')];
  return `(account, lt) IN (SELECT if(direction = 'in', destination, source), tx_lt FROM ${db}.messages ${sqlWhere(where)})`;
}

/**
 * Hashes of the transactions next to `tx` at or below the watermark: `in` the one that sent its in
 * message, `out` the ones that received its out messages, both when direction is undefined.
 */
export async function readAdjacentTransactionHashes(store: Store, scope: ReadScope, tx: TransactionRow, direction?: 'in' | 'out'): Promise<string[]> {
  if (scope.watermark === null) return [];
  const sides: string[] = [];
  if (direction !== 'out' && tx.in_msg) sides.push(`(hash = ${str(tx.in_msg.hash)} AND direction = 'out')`);
  if (direction !== 'in' && tx.out_msgs.length > 0) sides.push(`(hash IN ${strList(tx.out_msgs.map((m) => m.hash))} AND direction = 'in')`);
  if (sides.length === 0) return [];
  const rows = await store.query<{ tx_hash: string }>(
    // Ordered: the same answer from one server and from a cluster's shards, whatever order the rows come in.
    `SELECT DISTINCT tx_hash FROM ${store.database}.messages WHERE ${servedSeqnos('mc_block_seqno', scope.watermark, scope.floor)} AND (${sides.join(' OR ')}) AND tx_hash != ${str(tx.hash)} ORDER BY tx_hash`,
    scope.query,
  );
  return rows.map((r) => r.tx_hash);
}
