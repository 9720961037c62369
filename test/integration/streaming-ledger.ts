import type { LedgerRound, LedgerTx } from '../support/ledger.js';

/**
 * What a stream must carry for `accounts` in rounds (fromRound, toRound]: their transactions in traces
 * rooted in an external (or unknown) inbound message, by hash. A transaction whose parent is outside
 * such a trace belongs to no streamed trace.
 */
export function expectedTransactions(rounds: LedgerRound[], accounts: Set<string>, fromRound: number, toRound: number) {
  const sentBy = new Map<string, LedgerTx>();
  const inTrace = new Set<string>();
  const out = new Map<string, { account: string; lt: string; round: number }>();
  for (const r of rounds) {
    if (r.mc_seqno > toRound) break;
    const txs = r.blocks.flatMap((b) => b.transactions).sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : 1));
    for (const t of txs) {
      if (t.in_msg === null) continue;
      const parent = sentBy.get(t.in_msg);
      if (parent && !inTrace.has(parent.hash)) continue;
      inTrace.add(t.hash);
      for (const m of t.out_msgs) sentBy.set(m, t);
      if (r.mc_seqno > fromRound && accounts.has(t.account)) out.set(t.hash, { account: t.account, lt: t.lt, round: r.mc_seqno });
    }
  }
  return out;
}
