import { beginCell, type Builder, type Cell, Dictionary } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { getMethodIds, readBody, readTokenContent } from '../index.js';
import { countedValue, MAX_DICT_ENTRIES } from './dict.js';

// 2^14 entries: over MAX_DICT_ENTRIES, yet few enough that the old reads end (2^40 never would).

/**
 * A dictionary of `keyBits`-bit keys in `forks` + 1 cells: every fork's two references are the same
 * child, so it holds 2^forks entries, each `value`. @ton/core reads it entry by entry.
 */
function sharedDict(keyBits: number, forks: number, value: (b: Builder) => Builder): Cell {
  const rest = keyBits - forks;
  let node = value(beginCell().storeUint(0b10, 2).storeUint(rest, Math.ceil(Math.log2(rest + 1))).storeUint(0, rest)).endCell();
  for (let i = 0; i < forks; i++) node = beginCell().storeUint(0, 2).storeRef(node).storeRef(node).endCell();
  return node;
}

describe('dictionaries whose forks share cells are read up to MAX_DICT_ENTRIES entries', () => {
  it('sharedDict is what @ton/core reads as 2^forks entries (the oracle for the cases below)', () => {
    const dict = Dictionary.loadDirect(Dictionary.Keys.Uint(32), Dictionary.Values.Uint(8), sharedDict(32, 5, (b) => b.storeUint(7, 8)));
    expect(dict.size).toBe(32);
    expect(new Set(dict.values())).toEqual(new Set([7]));
  });

  it('countedValue lets MAX_DICT_ENTRIES entries through and refuses the next', () => {
    const at = (forks: number) => () => Dictionary.loadDirect(Dictionary.Keys.Uint(32), countedValue(Dictionary.Values.Uint(8)), sharedDict(32, forks, (b) => b.storeUint(7, 8)));
    expect(2 ** 12).toBe(MAX_DICT_ENTRIES);
    expect(at(12)().size).toBe(MAX_DICT_ENTRIES);
    expect(at(13)).toThrow(/more than 4096 entries/);
  });

  it('on-chain token content of 2^14 entries is unreadable (null)', () => {
    const content = (forks: number) => beginCell().storeUint(0, 8).storeBit(1).storeRef(sharedDict(256, forks, (b) => b.storeRef(beginCell().storeUint(0, 8).storeStringTail('x').endCell()))).endCell();
    expect(readTokenContent(content(3))).toEqual({});
    expect(readTokenContent(content(14))).toBeNull();
  });

  it('a payment_request whose extra currencies are 2^14 entries is not read as one', () => {
    const body = (forks: number) => beginCell().storeUint(0x706c7567, 32).storeUint(1, 64).storeCoins(5).storeBit(1).storeRef(sharedDict(32, forks, (b) => b.storeVarUint(1, 5))).endCell();
    expect(readBody(body(3))?.name).toBe('payment_request');
    expect(readBody(body(14))).toBeNull();
  });

  it('contract code whose method dictionary is 2^14 entries has no method ids (null)', () => {
    const code = (forks: number) => beginCell().storeUint(0xff00f4a413, 40).storeRef(sharedDict(19, forks, (b) => b.storeUint(0x30, 8))).endCell();
    expect(getMethodIds(code(3))).toHaveLength(8);
    expect(getMethodIds(code(14))).toBeNull();
  });
});
