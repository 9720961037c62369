/**
 * The local network's ledger (LOCALNET_LEDGER): one JSON line per round with every block and
 * transaction the chain made, written by the localnet service as it commits a round. Tests check what
 * tonstream indexed, streamed or emulated against it.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Address } from '@ton/core';
import type { LedgerBlock, LedgerRound, LedgerTransaction } from '../../services/localnet/src/ledger.js';

export type { LedgerBlock, LedgerRound, LedgerTransaction as LedgerTx };

/** Every round written so far (none before the file exists). */
export function readLedger(path: string): LedgerRound[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LedgerRound);
}

/** An address as the ledger and toncenter's raw form write it: `workchain:HEX` (upper case). */
export const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
