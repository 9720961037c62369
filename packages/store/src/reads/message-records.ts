import type { MessageRow } from '@tonstream/records';
import type { Store } from '../client.js';
import { accountLtList } from '../sql.js';
import { type MessageColumns, messageTransactionKey, storedMessage, type TransactionColumns } from '../transaction-facts.js';
import type { ReadScope } from './scope.js';
import { type Part, readPart } from './together.js';

/**
 * The records of message rows: their text, or (rows written since migration 18) what the BoCs of their
 * transactions derive, read in one query by the transactions' key (the receiver of an in message, the
 * sender of an out one, and the row's tx_lt).
 */
export async function readMessageRecords(store: Store, scope: ReadScope, rows: MessageColumns[]): Promise<MessageRow[]> {
  return readPart(store, scope, messageRecordsPart(store.database, rows));
}

/** The transaction columns storedMessage derives from, in the order of a part's values. */
const COLUMNS = ['record', 'boc', 'account', 'workchain', 'shard', 'block_seqno', 'mc_block_seqno', 'global_version'] as const satisfies readonly (keyof TransactionColumns)[];

/** readMessageRecords as a part of a shared read (together.ts). */
export function messageRecordsPart(db: string, rows: MessageColumns[]): Part<MessageRow[]> {
  const derived = rows.filter((r) => r.record === '');
  const sql =
    derived.length === 0
      ? null
      : `SELECT concat(account, ' ', toString(lt)) AS part_key, [${COLUMNS.map((c) => `toString(${c})`).join(', ')}] AS part_values
         FROM ${db}.transactions WHERE (account, lt) IN ${accountLtList(derived.map(messageTransactionKey))} LIMIT 1 BY account, lt`;
  const decode = (found: { part_key: string; part_values: string[] }[]) => {
    const txs = new Map(found.map((t) => [t.part_key, Object.fromEntries(COLUMNS.map((c, i) => [c, t.part_values[i]])) as TransactionColumns]));
    const derivedSoFar = new Map<string, MessageRow[]>();
    return rows.map((r) => {
      const k = messageTransactionKey(r);
      return storedMessage(r, txs.get(`${k.account} ${k.lt}`), derivedSoFar);
    });
  };
  return { sql, decode };
}
