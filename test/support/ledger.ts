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
export type LedgerRound = { mc_seqno: number; gen_utime: number; produced_at_ms: number; blocks: LedgerBlock[] };

/** Every round written so far (none before the file exists). */
export function readLedger(path: string): LedgerRound[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

/** An address as the ledger and toncenter's raw form write it: `workchain:HEX` (upper case). */
export const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
