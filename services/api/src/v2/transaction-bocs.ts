import { Cell } from '@ton/core';
import type { Liteserver } from '../chain/liteserver.js';
import { LiteClientError } from '../chain/liteserver.js';

/**
 * The raw transaction BoCs (`data` of v2 transactions) the index does not keep, fetched from the
 * liteserver with getTransactions: per account, newest first, following the prev links 16 at a
 * time (upstream's cap). A transaction the liteserver no longer keeps is simply absent from the map.
 */
const MAX_PER_QUERY = 16;

export type TxKey = { account: string; lt: string; hash: string };

export async function transactionBocs(lite: Liteserver, txs: readonly TxKey[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const byAccount = new Map<string, TxKey[]>();
  for (const t of txs) byAccount.set(t.account, [...(byAccount.get(t.account) ?? []), t]);
  await Promise.all(
    [...byAccount.values()].map(async (group) => {
      group.sort((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? 1 : -1));
      const [wc, hex] = group[0].account.split(':');
      const account = { workchain: Number(wc), hash: Buffer.from(hex, 'hex') };
      for (let i = 0; i < group.length; i++) {
        if (found.has(group[i].hash)) continue;
        try {
          const res = await lite.transactions(account, BigInt(group[i].lt), Buffer.from(group[i].hash, 'base64'), Math.min(MAX_PER_QUERY, group.length - i));
          if (res.transactions.length === 0) continue;
          for (const cell of Cell.fromBoc(Buffer.from(res.transactions))) found.set(cell.hash().toString('base64'), cell.toBoc().toString('base64'));
        } catch (err) {
          // Not kept any more (or never reachable): leave it out; a transport failure is the caller's.
          if (!(err instanceof LiteClientError) || err.status >= 500) throw err;
        }
      }
    }),
  );
  return found;
}
