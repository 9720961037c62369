import type { AccountStateRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import { str, strList, uint } from '../sql.js';
import { type ReadScope, sqlPage } from './scope.js';

/**
 * Latest code hash of each account (null when the account has no code or no stored state), from
 * `account_states_latest`. Used to choose an address's user-friendly form.
 */
export async function readCodeHashes(store: Store, scope: ReadScope, accounts: readonly string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  if (accounts.length === 0) return found;
  const rows = await store.query<{ account: string; code_hash: string }>(
    `SELECT account, argMax(code_hash, last_trans_lt) AS code_hash FROM ${store.database}.account_states_latest WHERE account IN ${strList([...accounts])} GROUP BY account`,
    scope.query,
  );
  for (const r of rows) found.set(r.account, r.code_hash === '' ? null : r.code_hash);
  return found;
}

/**
 * The indexed state of each account: its latest stored state with `mc_block_seqno` at or below the
 * watermark. A newer state (above the watermark) is not served; the one before it is, from the
 * `account_states` history (migration 3). `account_states_latest` is read too, so states stored
 * before that migration still answer. An account with no state at or below the watermark is absent.
 * The latest lt of each account is found on narrow columns first, then only that state's record is
 * read (a busy account has a state per block it was in; see readTransactions).
 */
export async function readAccountStates(store: Store, scope: ReadScope, accounts: readonly string[]): Promise<Map<string, AccountStateRecord>> {
  const found = new Map<string, AccountStateRecord>();
  if (scope.watermark === null || accounts.length === 0) return found;
  const db = store.database;
  const where = `account IN ${strList(accounts)} AND mc_block_seqno <= ${uint(scope.watermark)}`;
  const latest = (table: string) =>
    `SELECT account, last_trans_lt, record FROM ${db}.${table} WHERE (account, last_trans_lt) IN (SELECT account, max(last_trans_lt) FROM ${db}.${table} WHERE ${where} GROUP BY account)`;
  const rows = await store.query<{ record: string }>(
    `SELECT record FROM (${latest('account_states')} UNION ALL ${latest('account_states_latest')}) ORDER BY account ASC, last_trans_lt DESC LIMIT 1 BY account`,
    scope.query,
  );
  for (const { record } of rows) {
    const s = JSON.parse(record) as AccountStateRecord;
    found.set(s.account, s);
  }
  return found;
}

/** Key of a state in the map `readAccountStatesByHash` returns. */
export function accountStateKey(account: string, hash: string): string {
  return `${account} ${hash}`;
}

/**
 * States by (account, state hash), e.g. a transaction's `account_state_hash_before/after`, at or below
 * the watermark, keyed by `accountStateKey`. `lt` is the last transaction the state would follow (the
 * transaction's own lt for the state after it, its prev_trans_lt for the one before): the lookup is by
 * the table's key (account, last_trans_lt), and the hash must match too. Only states the pipeline
 * stored are found (one per account per block: a state between two transactions of one block is not).
 */
export async function readAccountStatesByHash(
  store: Store,
  scope: ReadScope,
  wanted: readonly { account: string; hash: string; lt: string }[],
): Promise<Map<string, AccountStateRecord>> {
  const found = new Map<string, AccountStateRecord>();
  if (scope.watermark === null || wanted.length === 0) return found;
  const keys = [...new Set(wanted.map((w) => `(${str(w.account)}, ${uint(w.lt)})`))].join(', ');
  const rows = await store.query<{ record: string }>(
    `SELECT any(record) AS record FROM ${store.database}.account_states
     WHERE (account, last_trans_lt) IN (${keys}) AND account_state_hash IN ${strList([...new Set(wanted.map((w) => w.hash))])}
       AND mc_block_seqno <= ${uint(scope.watermark)}
     GROUP BY account, account_state_hash`,
    scope.query,
  );
  for (const { record } of rows) {
    const s = JSON.parse(record) as AccountStateRecord;
    found.set(accountStateKey(s.account, s.account_state_hash), s);
  }
  return found;
}

/**
 * Accounts by balance, highest first (ties by account), each at its indexed state: the latest state
 * when it is at or below the watermark (`account_states_latest` FINAL), else the latest one at or
 * below it from the history (only the few accounts touched above the watermark take that path).
 */
export async function readTopBalances(store: Store, scope: ReadScope, page: { limit: number; offset: number }): Promise<{ account: string; balance: string }[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const w = uint(scope.watermark);
  return store.query<{ account: string; balance: string }>(
    // Inner columns are named `amount`: an outer alias `balance` would shadow the column in ORDER BY.
    `SELECT account, toString(amount) AS balance FROM (
      SELECT account, balance AS amount FROM ${db}.account_states_latest FINAL WHERE mc_block_seqno <= ${w}
      UNION ALL
      SELECT account, argMax(balance, last_trans_lt) AS amount FROM ${db}.account_states
      WHERE mc_block_seqno <= ${w} AND account IN (SELECT account FROM ${db}.account_states_latest FINAL WHERE mc_block_seqno > ${w})
      GROUP BY account
    ) ORDER BY amount DESC, account ASC ${sqlPage(page)}`,
    scope.query,
  );
}
