import { rethrowBugs } from '@tonstream/errors';
import { type Address, type Cell, Dictionary, type Slice } from '@ton/core';
import { rawAddress } from './token-data.js';

/*
 * Shared readers for the persistent-data layouts of DNS, multisig, vesting and sale contracts
 * (token-data.ts has the token ones): a layout matches only when it reads the whole cell.
 */

/** MsgAddress: raw internal address, null for addr_none; an external address does not fit. */
export function readAddress(s: Slice): string | null {
  const a = s.loadAddressAny();
  if (a === null) return null;
  if (!('workChain' in a)) throw new Error('external address');
  return rawAddress(a as Address);
}

export function requireAddress(s: Slice): string {
  const a = readAddress(s);
  if (a === null) throw new Error('addr_none where an address is required');
  return a;
}

/** `read` over the whole of `data`, or null when it throws or leaves bits or references unread. */
export function readExactly<T>(data: Cell, read: (s: Slice) => T): T | null {
  try {
    const s = data.beginParse();
    const value = read(s);
    return s.remainingBits === 0 && s.remainingRefs === 0 ? value : null;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

const addressValue = {
  serialize: () => undefined,
  parse: (s: Slice) => requireAddress(s),
};

/** A `HashmapE 8 MsgAddressInt` (multisig signers and proposers) as addresses in key order. */
export function addressList(dict: Cell | null): string[] {
  if (dict === null) return [];
  const d = Dictionary.loadDirect(Dictionary.Keys.Uint(8), addressValue as never, dict) as Dictionary<number, string>;
  return d.keys().sort((a, b) => a - b).map((k) => d.get(k)!);
}
