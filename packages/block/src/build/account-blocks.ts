import { Builder } from './builder.js';
import { addCurrency, type CurrencyInput, currencyAugmentation, ZERO_CURRENCY } from './currency.js';
import { type AugDictEntry, storeHashmapAug, storeHashmapAugE } from './dict.js';
import { BuildError } from './errors.js';
import type { TxSummary } from './tx-summary.js';

/**
 * _ (HashmapAugE 256 AccountBlock CurrencyCollection) = ShardAccountBlocks;
 * acc_trans#5 account_addr:bits256 transactions:(HashmapAug 64 ^Transaction CurrencyCollection)
 *   state_update:^(HASH_UPDATE Account) = AccountBlock;
 * Transactions are grouped by account and keyed by lt; each extra is the total_fees below it. The
 * account's hash update runs from its first transaction's old state to its last one's new state.
 * Returns the total fees of all transactions.
 */
export function storeShardAccountBlocks(b: Builder, txs: TxSummary[]): CurrencyInput {
  const byAccount = new Map<string, TxSummary[]>();
  for (const tx of txs) {
    const list = byAccount.get(tx.accountAddr);
    if (list) list.push(tx);
    else byAccount.set(tx.accountAddr, [tx]);
  }
  const entries: AugDictEntry<CurrencyInput>[] = [];
  for (const [addr, list] of byAccount) {
    list.sort((x, y) => (x.lt < y.lt ? -1 : x.lt > y.lt ? 1 : 0));
    for (let i = 1; i < list.length; i++) {
      if (list[i].lt === list[i - 1].lt) throw new BuildError(`account ${addr} has two transactions with lt ${list[i].lt}`);
    }
    const fees = list.reduce<CurrencyInput>((sum, tx) => addCurrency(sum, tx.totalFees), ZERO_CURRENCY);
    const hashUpdate = new Builder().storeUint(0x72, 8).storeHash(list[0].stateUpdate.oldHash).storeHash(list[list.length - 1].stateUpdate.newHash).endCell();
    entries.push({
      key: addr,
      extra: fees,
      store: (v) => {
        v.storeUint(0x5, 4).storeHash(addr);
        storeHashmapAug(
          v,
          64,
          list.map((tx) => ({ key: tx.lt, extra: tx.totalFees, store: (x: Builder) => x.storeRef(tx.cell) })),
          currencyAugmentation,
        );
        v.storeRef(hashUpdate);
      },
    });
  }
  return storeHashmapAugE(b, 256, entries, currencyAugmentation);
}
