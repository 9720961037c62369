import { Address, ExternalAddress, type Slice } from '@ton/core';
import { type Codec, type TlbJson, TlbMismatch } from './codec.js';

/*
 * Addresses (block.tlb, as ton-marker's scheme repeats them):
 *   addr_none$00 = MsgAddressExt;
 *   addr_external$01 len:(## 9) external_address:(bits len) = MsgAddressExt;
 *   anycast_info$_ depth:(#<= 30) { depth >= 1 } rewrite_pfx:(bits depth) = Anycast;
 *   addr_std$10 anycast:(Maybe Anycast) workchain_id:int8 address:bits256 = MsgAddressInt;
 *   addr_var$11 anycast:(Maybe Anycast) addr_len:(## 9) workchain_id:int32 address:(bits addr_len) = MsgAddressInt;
 *   _ internal_address:MsgAddressInt = MsgAddress;
 *   _ external_address:MsgAddressExt = MsgAddress;
 * addr_var (never used on mainnet) is refused by both readings, so they agree on what matches.
 */

/** Reads a present Anycast and prints it; the typed reading keeps the address as stored. */
function printAnycast(s: Slice): TlbJson {
  if (!s.loadBit()) return { '@type': 'nothing_from_maybe' };
  const depth = s.loadUint(5);
  if (depth < 1 || depth > 30) throw new TlbMismatch(`anycast depth ${depth} outside 1..30`);
  return { '@type': 'something_from_maybe', value: { '@type': 'anycast_info', depth: String(depth), rewrite_pfx: s.loadBits(depth).toString() } };
}

function skipAnycast(s: Slice): void {
  if (!s.loadBit()) return;
  const depth = s.loadUint(5);
  if (depth < 1 || depth > 30) throw new TlbMismatch(`anycast depth ${depth} outside 1..30`);
  s.skip(depth);
}

function expectStd(s: Slice): void {
  const tag = s.loadUint(2);
  if (tag === 3) throw new TlbMismatch('addr_var is not supported');
  if (tag !== 2) throw new TlbMismatch('expected an internal address');
}

/** `MsgAddressInt` (addr_std): a @ton/core Address. */
export const msgAddressInt: Codec<Address> = {
  read(s) {
    expectStd(s);
    skipAnycast(s);
    return new Address(s.loadInt(8), s.loadBuffer(32));
  },
  print(s) {
    expectStd(s);
    const anycast = printAnycast(s);
    return { '@type': 'addr_std', anycast, workchain_id: String(s.loadInt(8)), address: s.loadBits(256).toString() };
  },
};

/** `MsgAddressExt`: null (addr_none) or a @ton/core ExternalAddress. */
export const msgAddressExt: Codec<ExternalAddress | null> = {
  read(s) {
    const tag = s.loadUint(2);
    if (tag === 0) return null;
    if (tag !== 1) throw new TlbMismatch('expected an external address');
    const len = s.loadUint(9);
    return new ExternalAddress(len === 0 ? 0n : s.loadUintBig(len), len);
  },
  print(s): TlbJson {
    const tag = s.loadUint(2);
    if (tag === 0) return { '@type': 'addr_none' };
    if (tag !== 1) throw new TlbMismatch('expected an external address');
    const len = s.loadUint(9);
    return { '@type': 'addr_external', len: String(len), external_address: s.loadBits(len).toString() };
  },
};

const isInternal = (s: Slice) => s.preloadUint(1) === 1;

/** `MsgAddress`: an internal Address, an ExternalAddress, or null (addr_none). */
export const msgAddress: Codec<Address | ExternalAddress | null> = {
  read: (s) => (isInternal(s) ? msgAddressInt.read(s) : msgAddressExt.read(s)),
  print: (s, budget): TlbJson =>
    isInternal(s) ? { internal_address: msgAddressInt.print(s, budget) } : { external_address: msgAddressExt.print(s, budget) },
};
