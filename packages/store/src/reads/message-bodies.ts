import type { MessageRow, TransactionRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import { str, uint } from '../sql.js';
import { lacksBodies, TRANSACTION_COLUMNS, type TransactionColumns, wholeTransaction, withBodies } from '../transaction-facts.js';
import { pointRead, type ReadScope } from './scope.js';

/**
 * Message rows with their body and init-state BoCs, which rows written since migration 18 leave to
 * their transactions' BoCs: one read of those transactions by key (the receiver of an in message, the
 * sender of an out one, and the row's tx_lt).
 */
export async function withMessageBodies(store: Store, scope: ReadScope, messages: MessageRow[]): Promise<MessageRow[]> {
  const lacking = messages.filter(lacksBodies);
  if (lacking.length === 0) return messages;
  const txKey = (m: MessageRow) => `${m.direction === 'in' ? m.destination : m.source} ${m.tx_lt}`;
  const keys = [...new Set(lacking.map((m) => `(${str((m.direction === 'in' ? m.destination : m.source) ?? '')}, ${uint(m.tx_lt)})`))].join(', ');
  const rows = await store.query<TransactionColumns>(
    `SELECT ${TRANSACTION_COLUMNS} FROM ${store.database}.transactions WHERE (account, lt) IN (${keys}) LIMIT 1 BY account, lt`,
    pointRead(scope),
  );
  const txs = new Map<string, TransactionRecord>();
  for (const r of rows) {
    const t = wholeTransaction(r);
    if (t) txs.set(`${t.account} ${t.lt}`, t);
  }
  return messages.map((m) => {
    if (!lacksBodies(m)) return m;
    const tx = txs.get(txKey(m));
    if (!tx) throw new Error(`message ${m.hash} (${m.direction}) of transaction ${m.tx_hash} has no stored transaction BoC for its body`);
    return withBodies(m, tx);
  });
}
