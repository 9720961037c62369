import { Cell, Dictionary, loadTransaction, type Slice as CoreSlice } from '@ton/core';

/**
 * The baseline: what an indexer built on @ton/core does with a block BoC. `Cell.fromBoc` (which
 * hashes every cell), ShardAccountBlocks walked with `Dictionary`, `loadTransaction` on every
 * transaction and its hash. Returns the transaction hashes (hex).
 */
export function tonCoreBlockTransactions(bytes: Buffer): string[] {
  const root = Cell.fromBoc(bytes)[0];
  const extra = root.refs[3].beginParse();
  extra.loadUint(32);
  extra.loadRef();
  extra.loadRef();
  const accountBlocks = extra.loadRef().beginParse();
  const hashes: string[] = [];
  if (!accountBlocks.loadBit()) return hashes;
  const txValue = {
    serialize: () => {
      throw new Error('read only');
    },
    parse: (s: CoreSlice) => {
      skipCurrencyCollection(s);
      const cell = s.loadRef();
      loadTransaction(cell.beginParse());
      hashes.push(cell.hash().toString('hex'));
      return 0;
    },
  };
  const accountValue = {
    serialize: () => {
      throw new Error('read only');
    },
    parse: (s: CoreSlice) => {
      skipCurrencyCollection(s);
      s.loadUint(4); // acc_trans#5
      s.loadBuffer(32);
      Dictionary.loadDirect(Dictionary.Keys.BigUint(64), txValue, s);
      return 0;
    },
  };
  Dictionary.loadDirect(Dictionary.Keys.BigUint(256), accountValue, accountBlocks.loadRef());
  return hashes;
}

function skipCurrencyCollection(s: CoreSlice): void {
  s.loadCoins();
  s.loadMaybeRef();
}
