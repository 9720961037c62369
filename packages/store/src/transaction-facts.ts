import { shardHex, transactionFromBoc, type TransactionContext } from '@tonstream/block';
import { type MessageContent, type MessageRecord, type MessageRow, type TransactionRecord, type TransactionRow, transactionRow } from '@tonstream/records';

/**
 * The transaction BoC is the stored fact (migration 18). A `transactions` row keeps the BoC and the
 * block columns the BoC does not hold; its `record` stays empty when those give the record again, and
 * the reader derives it (and its messages, whole). Message rows keep their fields without the body and
 * init-state BoCs, which the BoCs of their transactions hold.
 */

/** What a `transactions` row gives a reader: its record text (empty when derived), BoC and block columns. */
export type TransactionColumns = {
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
export const TRANSACTION_COLUMNS = 'record, boc, account, workchain, shard, block_seqno, mc_block_seqno, global_version';

/** The columns of a transaction that, with its BoC, derive its record (written beside `boc`). */
export function transactionContext(t: TransactionRow): TransactionContext {
  return { account: t.account, blockRef: t.block_ref, mcSeqno: t.mc_block_seqno, globalVersion: t.global_version ?? null };
}

/**
 * True when the record is what its BoC and block columns derive: the writer then stores no record
 * text. Checked by deriving it, so a record the BoC does not give (another decoder's, a hand-made one,
 * a block with no committing masterchain seqno) keeps its text. Records of decoders older than
 * `global_version` keep theirs too: how their messages' fee bits read is not known.
 */
export function derivesFromBoc(t: TransactionRow): boolean {
  if (t.boc === undefined || t.global_version === undefined || t.mc_block_seqno === null) return false;
  let derived: TransactionRecord;
  try {
    derived = transactionFromBoc(t.boc, transactionContext(t));
  } catch {
    return false;
  }
  return sameRow(derived, t);
}

/** The same row, the decoder's form of it (transactionRow) compared as JSON text, key order included. */
function sameRow(derived: TransactionRecord, t: TransactionRow): boolean {
  const { token_events: _events, boc: _boc, ...stored } = t;
  const { boc: _derivedBoc, ...again } = transactionRow(derived);
  return JSON.stringify(stored) === JSON.stringify(again);
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

/**
 * The record a row's BoC derives, messages whole (for their body BoCs: a row with its record text
 * may not know how its messages' fee bits read, which the bodies do not depend on). Undefined without one.
 */
export function wholeTransaction(row: TransactionColumns): TransactionRecord | undefined {
  return row.boc === '' ? undefined : transactionFromBoc(row.boc, columnContext(row));
}

function columnContext(row: TransactionColumns): TransactionContext {
  const globalVersion = Number(row.global_version);
  return {
    account: row.account,
    blockRef: { workchain: Number(row.workchain), shard: shardHex(BigInt(row.shard)), seqno: Number(row.block_seqno) },
    mcSeqno: Number(row.mc_block_seqno),
    globalVersion: globalVersion === 0 ? null : globalVersion,
  };
}

/** The whole message records a derived transaction carries (none for one read from its record text). */
export function wholeMessages(t: TransactionRow | TransactionRecord): MessageRow[] | undefined {
  if (!isWhole(t.in_msg) || !t.out_msgs.every(isWhole)) return undefined;
  const row = { tx_hash: t.hash, tx_lt: t.lt, mc_block_seqno: t.mc_block_seqno };
  const rows: MessageRow[] = t.out_msgs.map((m) => ({ ...(m as MessageRecord), direction: 'out', ...row }));
  if (t.in_msg) rows.unshift({ ...(t.in_msg as MessageRecord), direction: 'in', ...row });
  return rows;
}

const isWhole = (m: { hash: string } | null): boolean => m === null || 'message_content' in m;

/**
 * A message row's record text without the body and init-state BoCs (kept as ''), for messages of a
 * decoder whose transactions carry their BoC (every one that reads `extra_flags`); others keep theirs.
 */
export function messageText(m: MessageRow, json: string): string {
  if (m.extra_flags === undefined) return json;
  const cut = (c: MessageContent) => ({ hash: c.hash, body: '' });
  return JSON.stringify({ ...m, message_content: cut(m.message_content), init_state: m.init_state && cut(m.init_state) });
}

/** True when a message record's body (or init state) BoC was left to its transaction's BoC. */
export function lacksBodies(m: MessageRecord): boolean {
  return m.message_content.body === '' || m.init_state?.body === '';
}

/** The message with its body and init-state BoCs from the same message of its transaction's BoC. */
export function withBodies<M extends MessageRecord>(m: M, tx: TransactionRecord): M {
  const whole = tx.in_msg?.hash === m.hash ? tx.in_msg : tx.out_msgs.find((o) => o.hash === m.hash);
  if (!whole) throw new Error(`message ${m.hash} is not in the BoC of transaction ${tx.hash}`);
  return { ...m, message_content: whole.message_content, init_state: whole.init_state };
}
