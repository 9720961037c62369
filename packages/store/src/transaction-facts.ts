import { EXTRA_FLAGS_VERSION, loadTransactionBoc, messageFromBoc, shardHex, toBase64, type Transaction, transactionFromBoc, type TransactionContext } from '@tonstream/block';
import type { MessageRow, TransactionRecord, TransactionRow } from '@tonstream/records';

/**
 * The transaction BoC is the stored fact (migration 18). A `transactions` row keeps the BoC and the
 * block columns the BoC does not hold; its `record` stays empty when those give the record again, and
 * the reader derives it (and its messages, whole). A `messages` row keeps its key and filter columns,
 * and its record is derived from the BoC of its transaction too.
 */

/** What a `transactions` row gives a reader: its key, record text (empty when derived), BoC and block columns. */
export type TransactionColumns = {
  hash: string;
  record: string;
  boc: string;
  account: string;
  workchain: number | string;
  shard: string;
  block_seqno: number | string;
  mc_block_seqno: number | string;
  global_version: number | string;
};

/** The columns `storedTransaction` reads. */
export const TRANSACTION_COLUMNS = 'hash, record, boc, account, workchain, shard, block_seqno, mc_block_seqno, global_version';

/**
 * True when the record is what its BoC and block columns derive: the writer then stores no record text.
 * The record must be a decoder's (`global_version` and the BoC set, a committing masterchain block
 * known), and the BoC must say what the record says of the transaction: account, lt, time, previous
 * transaction, statuses, fees, state hash and message counts, read from its cells without hashing them
 * (deriving the whole record costs ~40 times as much per row; that the decoder's records derive again,
 * hashes and messages included, is its golden test's: transaction-boc.test.ts). A hand-made or edited
 * record (a test's, a bench's) keeps its text.
 */
export function derivesFromBoc(t: TransactionRow): boolean {
  if (t.boc === undefined || t.global_version === undefined || t.mc_block_seqno === null) return false;
  let tx: Transaction;
  try {
    tx = loadTransactionBoc(t.boc).tx;
  } catch {
    return false;
  }
  return (
    t.account === `${t.block_ref.workchain}:${tx.accountAddr.toUpperCase()}` &&
    t.lt === tx.lt.toString() &&
    t.now === tx.now &&
    t.prev_trans_lt === tx.prevTransLt.toString() &&
    t.prev_trans_hash === toBase64(tx.prevTransHash) &&
    t.orig_status === tx.origStatus &&
    t.end_status === tx.endStatus &&
    t.total_fees === tx.totalFees.grams.toString() &&
    t.account_state_hash_before === toBase64(tx.stateUpdate.oldHash) &&
    t.account_state_hash_after === toBase64(tx.stateUpdate.newHash) &&
    t.out_msgs.length === tx.outMsgs.length &&
    (t.in_msg === null) === (tx.inMsg === undefined)
  );
}

/**
 * The transaction a row holds: its record text, or the record its BoC derives (whose messages are
 * whole records, a `TransactionRow` all the same). The BoC rides along either way.
 */
export function storedTransaction(row: TransactionColumns): TransactionRow | TransactionRecord {
  if (row.record === '') return transactionFromBoc(row.boc, columnContext(row));
  const t = JSON.parse(row.record) as TransactionRow;
  return row.boc === '' ? t : { ...t, boc: row.boc };
}

function columnContext(row: TransactionColumns): TransactionContext {
  const globalVersion = Number(row.global_version);
  return {
    account: row.account,
    blockRef: { workchain: Number(row.workchain), shard: shardHex(BigInt(row.shard)), seqno: Number(row.block_seqno) },
    mcSeqno: Number(row.mc_block_seqno),
    globalVersion: globalVersion === 0 ? null : globalVersion,
    hash: row.hash,
  };
}

/** The whole message records a derived transaction carries (none for one read from its record text). */
export function wholeMessages(t: TransactionRow | TransactionRecord): MessageRow[] | undefined {
  if (!isWhole(t.in_msg) || !t.out_msgs.every(isWhole)) return undefined;
  return messageRows(t as TransactionRecord);
}

const isWhole = (m: { hash: string } | null): boolean => m === null || 'message_content' in m;

/** A transaction's message rows, as the decoder makes them (decodeBlock). */
function messageRows(t: TransactionRecord): MessageRow[] {
  const row = { tx_hash: t.hash, tx_lt: t.lt, mc_block_seqno: t.mc_block_seqno };
  const rows: MessageRow[] = t.out_msgs.map((m) => ({ ...m, direction: 'out', ...row }));
  if (t.in_msg) rows.unshift({ ...t.in_msg, direction: 'in', ...row });
  return rows;
}

/** What a `messages` row gives a reader beyond its key: its record text (empty when derived) and the fee bits' reading. */
export type MessageColumns = { record: string; hash: string; direction: 'in' | 'out'; tx_hash: string; tx_lt: string; source: string; destination: string; reads_extra_flags: number | string };

/** The columns of `messages` a reader takes for `storedMessage`. */
export const MESSAGE_COLUMNS = ['record', 'hash', 'direction', 'tx_hash', 'tx_lt', 'source', 'destination', 'reads_extra_flags'] as const satisfies readonly (keyof MessageColumns)[];

/**
 * A message row's record text: empty for a message of a decoder whose transactions carry their BoC (every
 * one that reads `extra_flags`), whose record its transaction's BoC gives again; its text otherwise.
 */
export function messageText(m: MessageRow, json: string): string {
  return m.extra_flags === undefined ? json : '';
}

/** How the message's int_msg_info fee bits read (messageRecord): as extra_flags from global version 12 on. */
export function readsExtraFlags(m: MessageRow): 0 | 1 {
  return m.extra_flags === undefined || m.extra_flags === null ? 0 : 1;
}

/** The transaction (by its key in `transactions`) whose BoC holds a message row. */
export function messageTransactionKey(m: Pick<MessageColumns, 'direction' | 'source' | 'destination' | 'tx_lt'>): { account: string; lt: string } {
  return { account: m.direction === 'in' ? m.destination : m.source, lt: m.tx_lt };
}

/**
 * The message a row holds: its record text, or the record its transaction's BoC derives (`tx`, the
 * row of its transaction; only this message is derived), the fee bits read as the row says.
 */
export function storedMessage(row: MessageColumns, tx: TransactionColumns | undefined): MessageRow {
  if (row.record !== '') return JSON.parse(row.record) as MessageRow;
  if (!tx || tx.boc === '') throw new Error(`message ${row.hash} (${row.direction}) has no stored transaction BoC to derive it from`);
  const context = columnContext(tx);
  const flags = Number(row.reads_extra_flags) === 1;
  const found = messageFromBoc(tx.boc, { ...context, globalVersion: flags ? EXTRA_FLAGS_VERSION : null }, row.direction, row.hash);
  if (!found) throw new Error(`message ${row.hash} (${row.direction}) is not in the BoC of its transaction ${tx.account} ${row.tx_lt}`);
  return { ...found, direction: row.direction, tx_hash: row.tx_hash, tx_lt: row.tx_lt, mc_block_seqno: context.mcSeqno };
}
