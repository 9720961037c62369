/**
 * The local network's ledger (LOCALNET_LEDGER): one JSON line per round with every block and
 * transaction the chain made, written by the localnet service as it commits a round. Tests check what
 * tonstream indexed, streamed or emulated against it.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Address } from '@ton/core';

/** The ledger's lines, as the localnet service writes them (services/localnet/src/ledger.ts); stated here so the tests read the file as a client would. */
export type LedgerTx = { hash: string; account: string; lt: string; in_msg: string | null; out_msgs: string[] };
export type LedgerBlock = { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string; transactions: LedgerTx[] };
/** With LOCALNET_LEDGER_ACCOUNTS: an account the round changed, as it is after the round. */
export type LedgerAccount = { address: string; status: 'active' | 'uninit' | 'frozen' | 'nonexist'; balance: string; last_trans_lt: string };
export type LedgerRound = { mc_seqno: number; gen_utime: number; produced_at_ms: number; blocks: LedgerBlock[]; accounts?: LedgerAccount[] };

/**
 * Every round written so far (none before the file exists). A line still being written (no newline
 * yet: a reader can see part of a round's append) is left for a later read.
 */
export function readLedger(path: string): LedgerRound[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

/** A ledger transaction with the round and the shard that hold it. */
export type PlacedTx = LedgerTx & { mc_seqno: number; shard: string };

/** Every transaction of the rounds, in the ledger's order, with where it is. */
export function placedTransactions(rounds: LedgerRound[]): PlacedTx[] {
  return rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => ({ ...t, mc_seqno: r.mc_seqno, shard: `${b.workchain}:${b.shard}` }))));
}

/** The transactions of the trace rooted at the transaction `rootHash`, breadth first along message hashes. */
export function traceFrom(txs: PlacedTx[], rootHash: string): PlacedTx[] {
  const byIn = new Map(txs.filter((t) => t.in_msg).map((t) => [t.in_msg!, t]));
  const out: PlacedTx[] = [];
  for (const queue = txs.filter((t) => t.hash === rootHash); queue.length > 0; ) {
    const t = queue.shift()!;
    out.push(t);
    for (const m of t.out_msgs) if (byIn.has(m)) queue.push(byIn.get(m)!);
  }
  return out;
}

/**
 * Every account that exists after round `mcSeqno`, by address: the newest entry of each in the rounds up
 * to it (a process's first line lists them all; LOCALNET_LEDGER_ACCOUNTS). Throws if no round up to it
 * lists accounts.
 */
export function ledgerAccountsAt(rounds: LedgerRound[], mcSeqno: number): Map<string, LedgerAccount> {
  const upTo = rounds.filter((r) => r.mc_seqno <= mcSeqno && r.accounts);
  if (upTo.length === 0) throw new Error(`the ledger lists no accounts up to round ${mcSeqno} (LOCALNET_LEDGER_ACCOUNTS off?)`);
  const out = new Map<string, LedgerAccount>();
  for (const r of upTo) for (const a of r.accounts!) out.set(a.address, a);
  for (const [address, a] of out) if (a.status === 'nonexist') out.delete(address);
  return out;
}

/** An address as the ledger and toncenter's raw form write it: `workchain:HEX` (upper case). */
export const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;

/** A trace of the ledger: its root transaction's hash, every transaction reached through message hashes, where it began and ended. */
export type LedgerTrace = { id: string; txs: Set<string>; rootSeqno: number; endSeqno: number };

/** The ledger's traces: transactions joined through message hashes, each tree named by its root (a transaction whose in message no ledger transaction sent). */
export function ledgerTraces(rounds: LedgerRound[]): Map<string, LedgerTrace> {
  const txs = rounds.flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => ({ ...t, seqno: r.mc_seqno }))));
  const sender = new Map<string, string>();
  for (const t of txs) for (const m of t.out_msgs) sender.set(m, t.hash);
  const byHash = new Map(txs.map((t) => [t.hash, t]));
  const rootOf = (hash: string): string => {
    const inMsg = byHash.get(hash)!.in_msg;
    const parent = inMsg === null ? undefined : sender.get(inMsg);
    return parent ? rootOf(parent) : hash;
  };
  const traces = new Map<string, LedgerTrace>();
  for (const t of txs) {
    const id = rootOf(t.hash);
    let e = traces.get(id);
    if (!e) traces.set(id, (e = { id, txs: new Set(), rootSeqno: byHash.get(id)!.seqno, endSeqno: 0 }));
    e.txs.add(t.hash);
    e.endSeqno = Math.max(e.endSeqno, t.seqno);
  }
  return traces;
}

/** A stored trace as far as the ledger can vouch for it. */
type StoredTrace = { trace_id: string; is_incomplete: boolean; nodes: { tx_hash: string }[]; trace_info: { trace_state: string } };

/** Each stored trace that is not one of the ledger's, complete and with exactly its transactions, said why. */
export function tracesUnlikeLedger(stored: StoredTrace[], expected: Map<string, LedgerTrace>): string[] {
  return stored.flatMap((t) => {
    const e = expected.get(t.trace_id);
    const same = e !== undefined && JSON.stringify(t.nodes.map((n) => n.tx_hash).sort()) === JSON.stringify([...e.txs].sort());
    return same && !t.is_incomplete && t.trace_info.trace_state === 'complete' ? [] : [`${t.trace_id}: ${e ? `${t.nodes.length} of ${e.txs.size} transactions, ${t.trace_info.trace_state}` : 'not a root of the ledger'}`];
  });
}
