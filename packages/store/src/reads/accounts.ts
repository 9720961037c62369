import type { AccountStateRecord } from '@tonstream/records';
import type { Store } from '../client.js';
import type { HotTier } from '../hot/layout.js';
import { readHotCodeHashes, readHotStates } from '../hot/states.js';
import { hasTransactionSlice, readHotSummaries, type SummaryWanted } from '../hot/transactions.js';
import { accountLtList, strList, uint } from '../sql.js';
import { bucketCandidates, rankedPage, withinBound } from './ranked.js';
import { askHotTier, pointRead, type ReadScope, servedSeqnos, sqlPage, sqlWhere } from './scope.js';

/** What the hot tier answers of a read by keys, and which keys are left for ClickHouse (all of them when it cannot answer). */
async function fromHotTier<V>(scope: ReadScope, keys: readonly string[], read: (tier: HotTier) => Promise<{ found: Map<string, V>; missing: string[] }>): Promise<{ found: Map<string, V>; missing: readonly string[] }> {
  const answer = keys.length === 0 ? undefined : await askHotTier(scope.hot, read);
  return answer ?? { found: new Map(), missing: keys };
}

/**
 * Latest code hash of each account (null when the account has no code or no stored state), from
 * `account_states_latest`. Used to choose an address's user-friendly form.
 */
export async function readCodeHashes(store: Store, scope: ReadScope, accounts: readonly string[]): Promise<Map<string, string | null>> {
  const hot = await fromHotTier(scope, accounts, (tier) => readHotCodeHashes(tier, accounts));
  const found = hot.found;
  if (hot.missing.length === 0) return found;
  accounts = hot.missing;
  const rows = await store.query<{ account: string; code_hash: string }>(
    `SELECT account, argMax(code_hash, last_trans_lt) AS code_hash FROM ${store.database}.account_states_latest WHERE account IN ${strList([...accounts])} GROUP BY account`,
    pointRead(scope),
  );
  for (const r of rows) found.set(r.account, r.code_hash === '' ? null : r.code_hash);
  return found;
}

/**
 * The indexed state of each account: its latest stored state with `mc_block_seqno` at or below the
 * watermark. `account_states_latest` (one granule per account) is read first: when an account's newest
 * state there is at or below the watermark, it is the answer. Only an account whose newest state is
 * above the watermark (a block being indexed) is read again from the `account_states` history
 * (migration 3), which may still hold the one before it. An account with no state at or below the
 * watermark is absent. (Both tables were read for every account before: twice the reads of the common case.)
 * The hot tier (scope.hot) answers first; ClickHouse only for the accounts it cannot.
 */
export async function readAccountStates(store: Store, scope: ReadScope, accounts: readonly string[]): Promise<Map<string, AccountStateRecord>> {
  if (scope.watermark === null || accounts.length === 0) return new Map();
  const w = scope.watermark;
  const hot = await fromHotTier(scope, accounts, (tier) => readHotStates(tier, accounts, w));
  const found = hot.found;
  if (hot.missing.length === 0) return found;
  accounts = hot.missing;
  const db = store.database;
  // The newest of an account's unmerged versions (ReplacingMergeTree keeps the highest lt only after a
  // merge), found on narrow columns first so that only its record is read (bench:api's dataset: 60 KiB
  // read per lookup, where sorting the granule's records read 885 KiB).
  const newest = await store.query<{ record: string; mc_block_seqno: number }>(
    `SELECT record, mc_block_seqno FROM ${db}.account_states_latest
     WHERE (account, last_trans_lt) IN (SELECT account, max(last_trans_lt) FROM ${db}.account_states_latest WHERE account IN ${strList(accounts)} GROUP BY account)
     LIMIT 1 BY account`,
    pointRead(scope),
  );
  const above: string[] = [];
  const floor = scope.floor ?? 0;
  for (const { record, mc_block_seqno } of newest) {
    const s = JSON.parse(record) as AccountStateRecord;
    const seqno = Number(mc_block_seqno);
    // Below the floor: only a backfill wrote it, and the index does not serve that history yet.
    if (seqno > w) above.push(s.account);
    else if (seqno >= floor) found.set(s.account, s);
  }
  if (above.length === 0) return found;
  // Both tables, as states stored before migration 3 are only in the latest one (unmerged there).
  const where = `account IN ${strList(above)} AND ${servedSeqnos('mc_block_seqno', w, floor)}`;
  const latest = (table: string) =>
    `SELECT account, last_trans_lt, record FROM ${db}.${table} WHERE (account, last_trans_lt) IN (SELECT account, max(last_trans_lt) FROM ${db}.${table} WHERE ${where} GROUP BY account)`;
  const rows = await store.query<{ record: string }>(
    `SELECT record FROM (${latest('account_states')} UNION ALL ${latest('account_states_latest')}) ORDER BY account ASC, last_trans_lt DESC LIMIT 1 BY account`,
    pointRead(scope),
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

/** What a transaction's `account_state_before/after` shows of a state (account_state_summaries, migration 15). */
export type AccountStateSummary = Pick<AccountStateRecord, 'account' | 'account_state_hash' | 'balance' | 'extra_currencies' | 'status' | 'code_hash' | 'data_hash' | 'frozen_hash'>;

/**
 * States by (account, state hash), e.g. a transaction's `account_state_hash_before/after`, at or below
 * the watermark, keyed by `accountStateKey`. `lt` and `tx` are the last transaction the state would follow (the
 * transaction's own for the state after it, its prev_trans_lt and prev_trans_hash for the one before): the lookup is by
 * the table's key (account, last_trans_lt), and the hash must match too. Only states the pipeline
 * stored are found (one per account per block: a state between two transactions of one block is not).
 * Read from `account_state_summaries`: the states' records carry their code and data BoCs, which a
 * transaction does not show.
 */
export async function readAccountStatesByHash(
  store: Store,
  scope: ReadScope,
  wanted: readonly SummaryWanted[],
): Promise<Map<string, AccountStateSummary>> {
  const found = new Map<string, AccountStateSummary>();
  if (scope.watermark === null || wanted.length === 0) return found;
  const held = await askHotTier(scope.hot, async (tier) => (hasTransactionSlice(tier) ? readHotSummaries(tier, wanted) : undefined));
  for (const s of held?.found ?? []) found.set(accountStateKey(s.account, s.account_state_hash), s);
  if (held) wanted = held.unknown;
  if (wanted.length === 0) return found;
  const rows = await store.query<SummaryColumns>(
    `SELECT ${SUMMARY_COLUMNS} FROM ${store.database}.account_state_summaries
     WHERE (account, last_trans_lt) IN ${accountLtList(wanted)} AND account_state_hash IN ${strList([...new Set(wanted.map((w) => w.hash))])}
       AND ${servedSeqnos('mc_block_seqno', scope.watermark, scope.floor)}
     LIMIT 1 BY account, account_state_hash`,
    pointRead(scope),
  );
  for (const r of rows) found.set(accountStateKey(r.account, r.account_state_hash), summaryFromColumns(r));
  return found;
}

/** What `account_state_summaries` gives a reader of a summary. */
export type SummaryColumns = { account: string; last_trans_lt: string; account_state_hash: string; balance: string; status: string; code_hash: string; data_hash: string; frozen_hash: string; extra_currencies: string };
export const SUMMARY_COLUMNS = 'account, last_trans_lt, account_state_hash, balance, status, code_hash, data_hash, frozen_hash, extra_currencies';

export function summaryFromColumns(r: SummaryColumns): AccountStateSummary {
  const hash = (h: string) => (h === '' ? null : h);
  return {
    account: r.account,
    account_state_hash: r.account_state_hash,
    balance: r.balance,
    // '' only for rows written without the field (not the decoder's): none, as an absent map.
    extra_currencies: r.extra_currencies === '' ? {} : (JSON.parse(r.extra_currencies) as Record<string, string>),
    status: r.status as AccountStateRecord['status'],
    code_hash: hash(r.code_hash),
    data_hash: hash(r.data_hash),
    frozen_hash: hash(r.frozen_hash),
  };
}

/**
 * Accounts by balance, highest first (ties by account), each at its indexed state: a ranked read
 * (reads/ranked.ts) over `accounts_by_balance` (migration 11), so a top page reads the candidates of
 * the top buckets only. A candidate's state is its latest when that is at or below the watermark
 * (`account_states_latest`), else the latest at or below it from the history (only the few accounts
 * touched above the watermark take that path).
 */
export async function readTopBalances(store: Store, scope: ReadScope, page: { limit: number; offset: number }): Promise<{ account: string; balance: string }[]> {
  if (scope.watermark === null) return [];
  const db = store.database;
  const w = uint(scope.watermark);
  const served = (column: string) => servedSeqnos(column, scope.watermark!, scope.floor);
  const source = { table: `${db}.accounts_by_balance`, prefix: [] };
  return rankedPage(store, scope, source, 'desc', page, (bound) => {
    const named = `account IN (${bucketCandidates(source.table, 'account', [], bound)})`;
    return store.query<{ account: string; balance: string }>(
      // Inner columns are named `amount`: an outer alias `balance` would shadow the column in ORDER BY.
      `SELECT account, toString(amount) AS balance FROM (
        SELECT account, amount FROM (
          SELECT account, argMax(balance, last_trans_lt) AS amount, argMax(mc_block_seqno, last_trans_lt) AS newest FROM ${db}.account_states_latest WHERE ${named} GROUP BY account
        ) WHERE ${served('newest')}
        UNION ALL
        SELECT account, argMax(balance, last_trans_lt) AS amount FROM ${db}.account_states
        WHERE ${served('mc_block_seqno')} AND account IN (SELECT account FROM ${db}.account_states_latest WHERE ${named} AND mc_block_seqno > ${w})
        GROUP BY account
      ) ${sqlWhere(withinBound('toString(amount)', bound))} ORDER BY amount DESC, account ASC ${sqlPage(page)}`,
      scope.query,
    );
  });
}
