import { Dictionary, type Slice } from '@ton/core';
import { type Codec, TlbMismatch } from './codec.js';
import { countedValue } from './dict.js';
import { varUint } from './primitives.js';

/*
 *   nanograms$_ amount:(VarUInteger 16) = Grams;
 *   nanocoins$_ amount:(VarUInteger 16) = Coins;
 *   extra_currencies$_ dict:(HashmapE 32 (VarUInteger 32)) = ExtraCurrencyCollection;
 *   currencies$_ grams:Grams other:ExtraCurrencyCollection = CurrencyCollection;
 */

const amount16 = varUint(16);

function wrapped(name: string): Codec<bigint> {
  return { read: amount16.read, print: (s, budget) => ({ '@type': name, amount: amount16.print(s, budget) }) };
}

/** `Grams`: nanotons. */
export const grams = wrapped('nanograms');

/** `Coins`: an amount (nanotons or jetton units). */
export const coins = wrapped('nanocoins');

export type CurrencyCollection = { grams: bigint; other: Map<number, bigint> };

const extraValue = { serialize: () => undefined, parse: (s: Slice) => s.loadVarUintBig(5) };

/**
 * `CurrencyCollection`. The typed reading takes extra currencies; printing a non-empty dictionary
 * is not done (a Hashmap's TL-B form is not something a reader of /decode wants), so such a value
 * prints as a mismatch and the body is reported unknown.
 */
export const currencyCollection: Codec<CurrencyCollection> = {
  read(s) {
    const value = grams.read(s);
    const dict = s.loadDict(Dictionary.Keys.Uint(32), countedValue(extraValue));
    return { grams: value, other: new Map(dict) };
  },
  print(s, budget) {
    const value = grams.print(s, budget);
    if (s.loadBit()) throw new TlbMismatch('extra currencies (a non-empty HashmapE) are not printed');
    return { '@type': 'currencies', grams: value, other: { '@type': 'extra_currencies', dict: { '@type': 'hashmap_empty' } } };
  },
};
