/**
 * How far a state bootstrap got, in the index's own ClickHouse database (`bootstrap_progress`), so a
 * run that was stopped continues where it stopped and a finished one is not repeated.
 *
 * A row per shard state ("part", `workchain:SHARD:seqno`) after each batch it wrote: accounts written
 * so far and the last account's key (the walk goes in key order, so a re-run enters only the keys
 * above it), `done` once the part is whole; and a row with part `*` once every part at that
 * masterchain seqno is (what `--at-index-start` looks for). The newest row of a part counts.
 *
 * The table is migration 22 of @tonstream/store (a control table: on a cluster every node holds it whole).
 */
import type { Store } from '@tonstream/store';

export const WHOLE = '*';
const TABLE = 'bootstrap_progress';

export type PartProgress = {
  part: string;
  /** Accounts written in this part, over every run. */
  accounts: number;
  /** Hex key (64 digits) of the last account written, '' before any. */
  lastAccount: string;
  done: boolean;
};

/** Every part's newest row at `mcSeqno`, by part. */
export async function readProgress(store: Store, mcSeqno: number): Promise<Map<string, PartProgress>> {
  const rows = await store.query<{ part: string; accounts: string; last_account: string; done: number }>(
    `SELECT part, argMax(accounts, updated_ms) AS accounts, argMax(last_account, updated_ms) AS last_account, argMax(done, updated_ms) AS done
     FROM ${store.database}.${TABLE} WHERE mc_seqno = ${Math.trunc(mcSeqno)} GROUP BY part`,
  );
  return new Map(rows.map((r) => [r.part, { part: r.part, accounts: Number(r.accounts), lastAccount: r.last_account, done: Number(r.done) === 1 }]));
}

let lastMs = 0;

export async function saveProgress(store: Store, mcSeqno: number, p: PartProgress): Promise<void> {
  // Strictly increasing, so two rows of one part written within a millisecond still order.
  lastMs = Math.max(Date.now(), lastMs + 1);
  await store.insert(TABLE, [{ mc_seqno: mcSeqno, part: p.part, accounts: p.accounts, last_account: p.lastAccount, done: p.done ? 1 : 0, updated_ms: lastMs }]);
}
