import type { MessageRow } from '@tonstream/records';
import type { Store } from '../client.js';
import { accountLtList } from '../sql.js';
import { type MessageColumns, messageTransactionKey, storedMessage, TRANSACTION_COLUMNS, type TransactionColumns } from '../transaction-facts.js';
import { pointRead, type ReadScope } from './scope.js';

/**
 * The records of message rows: their text, or (rows written since migration 18) what the BoCs of their
 * transactions derive, read in one query by the transactions' key (the receiver of an in message, the
 * sender of an out one, and the row's tx_lt).
 */
export async function readMessageRecords(store: Store, scope: ReadScope, rows: MessageColumns[]): Promise<MessageRow[]> {
  const derived = rows.filter((r) => r.record === '');
  const txs = new Map<string, TransactionColumns>();
  if (derived.length > 0) {
    const found = await store.query<TransactionColumns & { lt: string }>(
      `SELECT ${TRANSACTION_COLUMNS}, lt FROM ${store.database}.transactions WHERE (account, lt) IN ${accountLtList(derived.map(messageTransactionKey))} LIMIT 1 BY account, lt`,
      pointRead(scope),
    );
    for (const t of found) txs.set(`${t.account} ${t.lt}`, t);
  }
  return rows.map((r) => {
    const k = messageTransactionKey(r);
    return storedMessage(r, txs.get(`${k.account} ${k.lt}`));
  });
}
