import type { Store } from '../client.js';
import { strList } from '../sql.js';
import type { ReadScope } from './scope.js';

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

