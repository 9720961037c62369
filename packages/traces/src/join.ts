import type { MessageRecord, MessageRow, TransactionRecord, TransactionRow } from '@tonstream/records';
import { TonstreamError } from '@tonstream/errors';

/** A message row without the columns of its side (direction, transaction): the record the transaction embeds. */
function messageRecord(row: MessageRow): MessageRecord {
  const { direction: _d, tx_hash: _h, tx_lt: _l, mc_block_seqno: _m, ...message } = row;
  return message;
}

/** Why a transaction could not be put back together: a message it names is missing. */
export class MissingMessageError extends TonstreamError {
  readonly code = 'TRACE_MESSAGE_MISSING';
}

/**
 * Puts transactions back together from the topics' rows: a transaction names its messages by hash,
 * each message row is one side (in / out) of one transaction. Throws MissingMessageError when a
 * named message has no row (the block is not whole yet, or was published incompletely).
 */
export function joinTransactions(transactions: readonly TransactionRow[], messages: readonly MessageRow[]): TransactionRecord[] {
  const side = new Map<string, MessageRow>();
  for (const m of messages) side.set(`${m.tx_hash}\u0000${m.direction}\u0000${m.hash}`, m);
  const find = (tx: string, direction: 'in' | 'out', hash: string) => {
    const row = side.get(`${tx}\u0000${direction}\u0000${hash}`);
    if (!row) throw new MissingMessageError(`transaction ${tx}: its ${direction} message ${hash} has no row`);
    return messageRecord(row);
  };
  return transactions.map((t) => ({
    ...t,
    in_msg: t.in_msg && find(t.hash, 'in', t.in_msg.hash),
    out_msgs: t.out_msgs.map((m) => find(t.hash, 'out', m.hash)),
  }));
}
