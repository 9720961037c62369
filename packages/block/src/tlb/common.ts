import type { Slice } from '../boc/slice.js';
import { keyToNumber, walkHashmapE } from './hashmap.js';

/** currencies$_ grams:Grams other:ExtraCurrencyCollection; extra currencies keyed by id, amounts as decimal strings. */
export type CurrencyCollection = { grams: bigint; other: Record<string, string> };

export function loadCurrencyCollection(s: Slice): CurrencyCollection {
  const grams = s.loadCoins();
  const other: Record<string, string> = {};
  // extra_currencies$_ dict:(HashmapE 32 (VarUInteger 32))
  if (s.remainingBits > 0 && peekBit(s)) {
    walkHashmapE(s, 32, (key, v) => {
      other[String(keyToNumber(key))] = v.loadVarUint(32).toString();
    });
  } else {
    s.loadBit();
  }
  return { grams, other };
}

export function skipCurrencyCollection(s: Slice): void {
  s.loadCoins();
  if (s.loadBit()) s.loadRef();
}

function peekBit(s: Slice): boolean {
  return s.clone().loadBit();
}

export type AccountStatus = 'uninit' | 'frozen' | 'active' | 'nonexist';
const ACCOUNT_STATUS: AccountStatus[] = ['uninit', 'frozen', 'active', 'nonexist'];

/** acc_state_uninit$00 acc_state_frozen$01 acc_state_active$10 acc_state_nonexist$11 */
export function loadAccountStatus(s: Slice): AccountStatus {
  return ACCOUNT_STATUS[s.loadUint(2)];
}

export type StatusChange = 'unchanged' | 'frozen' | 'deleted';

/** acst_unchanged$0 acst_frozen$10 acst_deleted$11 */
export function loadStatusChange(s: Slice): StatusChange {
  if (!s.loadBit()) return 'unchanged';
  return s.loadBit() ? 'deleted' : 'frozen';
}

/** storage_used_short$_ cells:(VarUInteger 7) bits:(VarUInteger 7) */
export type StorageUsedShort = { cells: bigint; bits: bigint };

export function loadStorageUsedShort(s: Slice): StorageUsedShort {
  return { cells: s.loadVarUint(7), bits: s.loadVarUint(7) };
}

export function loadMaybe<T>(s: Slice, read: (s: Slice) => T): T | undefined {
  return s.loadBit() ? read(s) : undefined;
}

/** MsgAddressInt / MsgAddressExt / addr_none. */
export type MsgAddress =
  | { type: 'none' }
  | { type: 'extern'; bits: number; data: Uint8Array }
  | { type: 'std'; workchain: number; hash: string; anycast?: Anycast }
  | { type: 'var'; workchain: number; bits: number; data: Uint8Array; anycast?: Anycast };

export type Anycast = { depth: number; prefix: Uint8Array };

/**
 * addr_none$00  addr_extern$01 len:(## 9) external_address:(bits len)
 * addr_std$10 anycast:(Maybe Anycast) workchain_id:int8 address:bits256
 * addr_var$11 anycast:(Maybe Anycast) addr_len:(## 9) workchain_id:int32 address:(bits addr_len)
 */
export function loadMsgAddress(s: Slice): MsgAddress {
  switch (s.loadUint(2)) {
    case 0:
      return { type: 'none' };
    case 1: {
      const bits = s.loadUint(9);
      return { type: 'extern', bits, data: s.loadBits(bits) };
    }
    case 2: {
      const anycast = loadMaybe(s, loadAnycast);
      const workchain = s.loadInt(8);
      return anycast ? { type: 'std', workchain, hash: s.loadHash(), anycast } : { type: 'std', workchain, hash: s.loadHash() };
    }
    default: {
      const anycast = loadMaybe(s, loadAnycast);
      const bits = s.loadUint(9);
      const workchain = s.loadInt(32);
      return { type: 'var', workchain, bits, data: s.loadBits(bits), ...(anycast ? { anycast } : {}) };
    }
  }
}

/** anycast_info$_ depth:(#<= 30) { depth >= 1 } rewrite_pfx:(bits depth) */
function loadAnycast(s: Slice): Anycast {
  const depth = s.loadUint(5);
  if (depth < 1 || depth > 30) s.fail(`anycast depth ${depth}`);
  return { depth, prefix: s.loadBits(depth) };
}

/** Raw form as toncenter prints it: `0:ABC…` uppercase; null for addr_none and external addresses. */
export function rawAddress(a: MsgAddress): string | null {
  if (a.type === 'std') return `${a.workchain}:${a.hash.toUpperCase()}`;
  if (a.type === 'var') return `${a.workchain}:${Buffer.from(a.data).toString('hex').toUpperCase()}`;
  return null;
}

/** External addresses as toncenter shows them in `destination`/`source` of ext messages: null. */
export function externalAddressHex(a: MsgAddress): string | null {
  return a.type === 'extern' ? Buffer.from(a.data).toString('hex') : null;
}
