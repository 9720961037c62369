import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { type CurrencyInput, storeCurrency, ZERO_CURRENCY } from './currency.js';

/** A ValueFlow to write; field names follow the reader's `ValueFlow`. Missing amounts are zero. */
export type ValueFlowDesc = {
  /** 2 (default): value_flow_v2#3ebf98b7 with `burned`; 1: value_flow#b8e48dfb. */
  version?: 1 | 2;
  fromPrevBlk?: CurrencyInput;
  toNextBlk?: CurrencyInput;
  imported?: CurrencyInput;
  exported?: CurrencyInput;
  feesCollected?: CurrencyInput;
  burned?: CurrencyInput;
  feesImported?: CurrencyInput;
  recovered?: CurrencyInput;
  created?: CurrencyInput;
  minted?: CurrencyInput;
};

/**
 * value_flow#b8e48dfb ^[ from_prev_blk:CurrencyCollection to_next_blk:CurrencyCollection imported:CurrencyCollection
 *   exported:CurrencyCollection ] fees_collected:CurrencyCollection
 *   ^[ fees_imported:CurrencyCollection recovered:CurrencyCollection created:CurrencyCollection minted:CurrencyCollection ] = ValueFlow;
 * value_flow_v2#3ebf98b7 ^[ … ] fees_collected:CurrencyCollection burned:CurrencyCollection ^[ … ] = ValueFlow;
 */
export function buildValueFlow(v: ValueFlowDesc): Cell {
  const z = (c: CurrencyInput | undefined) => c ?? ZERO_CURRENCY;
  const cc = (...list: (CurrencyInput | undefined)[]) => {
    const b = new Builder();
    for (const c of list) storeCurrency(b, z(c));
    return b.endCell();
  };
  const v2 = (v.version ?? 2) === 2;
  const b = new Builder().storeUint(v2 ? 0x3ebf98b7 : 0xb8e48dfb, 32).storeRef(cc(v.fromPrevBlk, v.toNextBlk, v.imported, v.exported));
  storeCurrency(b, z(v.feesCollected));
  if (v2) storeCurrency(b, z(v.burned));
  return b.storeRef(cc(v.feesImported, v.recovered, v.created, v.minted)).endCell();
}
