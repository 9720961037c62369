import type { Builder } from './builder.js';
import { type Augmentation, storeHashmapE } from './dict.js';

/** A CurrencyCollection to write: grams and extra currencies by id (amounts as decimal strings or bigints). */
export type CurrencyInput = { grams: bigint; other?: Record<string, string | bigint> };

export const ZERO_CURRENCY: CurrencyInput = { grams: 0n };

/**
 * currencies$_ grams:Grams other:ExtraCurrencyCollection = CurrencyCollection;
 * extra_currencies$_ dict:(HashmapE 32 (VarUInteger 32)) = ExtraCurrencyCollection;
 * Zero amounts of extra currencies are left out.
 */
export function storeCurrency(b: Builder, c: CurrencyInput): void {
  b.storeCoins(c.grams);
  const other = Object.entries(c.other ?? {})
    .map(([id, amount]) => ({ id: BigInt(id), amount: BigInt(amount) }))
    .filter((e) => e.amount !== 0n);
  storeHashmapE(
    b,
    32,
    other.map((e) => ({ key: e.id, store: (v: Builder) => v.storeVarUint(e.amount, 32) })),
  );
}

export function addCurrency(a: CurrencyInput, b: CurrencyInput): CurrencyInput {
  if (!a.other && !b.other) return { grams: a.grams + b.grams };
  const other: Record<string, bigint> = {};
  for (const c of [a, b]) for (const [id, v] of Object.entries(c.other ?? {})) other[id] = (other[id] ?? 0n) + BigInt(v);
  return { grams: a.grams + b.grams, other };
}

/** Extras of dictionaries augmented with CurrencyCollection (ShardAccountBlocks, OutMsgDescr, transactions): sums. */
export const currencyAugmentation: Augmentation<CurrencyInput> = { store: storeCurrency, combine: addCurrency, empty: ZERO_CURRENCY };

/** import_fees$_ fees_collected:Grams value_imported:CurrencyCollection = ImportFees; */
export type ImportFees = { feesCollected: bigint; valueImported: CurrencyInput };

export const ZERO_IMPORT_FEES: ImportFees = { feesCollected: 0n, valueImported: ZERO_CURRENCY };

export const importFeesAugmentation: Augmentation<ImportFees> = {
  store: (b, f) => {
    b.storeCoins(f.feesCollected);
    storeCurrency(b, f.valueImported);
  },
  combine: (x, y) => ({ feesCollected: x.feesCollected + y.feesCollected, valueImported: addCurrency(x.valueImported, y.valueImported) }),
  empty: ZERO_IMPORT_FEES,
};
