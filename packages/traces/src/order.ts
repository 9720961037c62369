import type { TransactionRecord } from '@tonstream/records';

/** The workchain of a raw address `wc:HEX`. */
export function workchainOf(address: string): number {
  return Number(address.slice(0, address.indexOf(':')));
}

/**
 * toncenter's processing order inside a masterchain block (reference §1.5): (lt, workchain,
 * account). A parent always precedes its child: child lt > message created_lt > parent lt.
 */
export function compareTransactions(a: Pick<TransactionRecord, 'lt' | 'account'>, b: Pick<TransactionRecord, 'lt' | 'account'>): number {
  const la = BigInt(a.lt);
  const lb = BigInt(b.lt);
  if (la !== lb) return la < lb ? -1 : 1;
  const wa = workchainOf(a.account);
  const wb = workchainOf(b.account);
  if (wa !== wb) return wa - wb;
  return a.account < b.account ? -1 : a.account > b.account ? 1 : 0;
}
