import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cell, loadTransaction, type Message, type Transaction } from '@ton/core';

/** test/fixtures/mainnet of this repository (real mainnet data; see its SOURCES.md). */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/mainnet');

/** One transaction of transactions.json, read by @ton/core (independently of this package). */
export type FixtureTx = { category: string; lt: string; account: string; tx: Transaction; in: Message | null; out: Message[] };

export function fixtureTransactions(): FixtureTx[] {
  const list = JSON.parse(readFileSync(join(FIXTURES, 'transactions.json'), 'utf8')).transactions as { category: string; lt: string; account: string; boc_base64: string }[];
  return list.map((e) => {
    const tx = loadTransaction(Cell.fromBase64(e.boc_base64).beginParse());
    return { category: e.category, lt: e.lt, account: e.account, tx, in: tx.inMessage ?? null, out: [...tx.outMessages.values()] };
  });
}

/** The fixture transactions whose inbound body starts with `opcode`. */
export function withInbound(opcode: number): FixtureTx[] {
  return fixtureTransactions().filter((t) => t.in && t.in.body.bits.length >= 32 && t.in.body.beginParse().preloadUint(32) === opcode);
}

/** The opcode of a body, or null. */
export function opcodeOf(body: Cell): number | null {
  return body.bits.length >= 32 ? body.beginParse().preloadUint(32) : null;
}
