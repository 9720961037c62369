import { existsSync, readFileSync } from 'node:fs';

/** The localnet's ledger (LOCALNET_LEDGER): one JSON line per round, what the streaming tests check streams against. */
export type LedgerTx = { hash: string; account: string; lt: string; in_msg: string | null; out_msgs: string[] };
export type LedgerRound = { mc_seqno: number; blocks: { transactions: LedgerTx[] }[] };

export function readLedger(path: string): LedgerRound[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

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
