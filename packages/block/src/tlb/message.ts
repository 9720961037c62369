import type { Slice } from '../boc/slice.js';
import type { CellPart } from '../boc/subtree.js';
import { type CurrencyCollection, loadCurrencyCollection, loadMaybe, loadMsgAddress, type MsgAddress } from './common.js';

/**
 * int_msg_info$0 ihr_disabled:Bool bounce:Bool bounced:Bool src:MsgAddressInt dest:MsgAddressInt
 *   value:CurrencyCollection ihr_fee:Grams fwd_fee:Grams created_lt:uint64 created_at:uint32
 * (from global version 12, 2025, the `ihr_fee` bits are `extra_flags:(VarUInteger 16)`: the same
 * encoding, so it is read once here and named by the normalizer)
 */
export type IntMsgInfo = {
  type: 'internal';
  ihrDisabled: boolean;
  bounce: boolean;
  bounced: boolean;
  src: MsgAddress;
  dest: MsgAddress;
  value: CurrencyCollection;
  ihrFee: bigint;
  fwdFee: bigint;
  createdLt: bigint;
  createdAt: number;
};

/** ext_in_msg_info$10 src:MsgAddressExt dest:MsgAddressInt import_fee:Grams */
export type ExtInMsgInfo = { type: 'external-in'; src: MsgAddress; dest: MsgAddress; importFee: bigint };

/** ext_out_msg_info$11 src:MsgAddressInt dest:MsgAddressExt created_lt:uint64 created_at:uint32 */
export type ExtOutMsgInfo = { type: 'external-out'; src: MsgAddress; dest: MsgAddress; createdLt: bigint; createdAt: number };

export type CommonMsgInfo = IntMsgInfo | ExtInMsgInfo | ExtOutMsgInfo;


/**
 * message$_ {X:Type} info:CommonMsgInfo init:(Maybe (Either StateInit ^StateInit)) body:(Either X ^X) = Message X;
 * `init` and `body` are located, not decoded: the normalizer hashes and serializes them.
 */
export type Message = { cell: number; info: CommonMsgInfo; init?: CellPart; body: CellPart };

export function loadCommonMsgInfo(s: Slice): CommonMsgInfo {
  if (!s.loadBit()) {
    return {
      type: 'internal',
      ihrDisabled: s.loadBit(),
      bounce: s.loadBit(),
      bounced: s.loadBit(),
      src: loadMsgAddress(s),
      dest: loadMsgAddress(s),
      value: loadCurrencyCollection(s),
      ihrFee: s.loadCoins(),
      fwdFee: s.loadCoins(),
      createdLt: s.loadUintBig(64),
      createdAt: s.loadUint(32),
    };
  }
  if (!s.loadBit()) {
    return { type: 'external-in', src: loadMsgAddress(s), dest: loadMsgAddress(s), importFee: s.loadCoins() };
  }
  return { type: 'external-out', src: loadMsgAddress(s), dest: loadMsgAddress(s), createdLt: s.loadUintBig(64), createdAt: s.loadUint(32) };
}

export function loadMessage(s: Slice): Message {
  const cell = s.cell;
  const info = loadCommonMsgInfo(s);
  let init: CellPart | undefined;
  if (s.loadBit()) {
    if (s.loadBit()) {
      init = { kind: 'cell', cell: s.loadRef() };
    } else {
      init = { kind: 'inline', cell: s.cell, bit: s.offset, ref: s.refOffset };
      skipStateInit(s);
    }
  }
  const body: CellPart = s.loadBit()
    ? { kind: 'cell', cell: s.loadRef() }
    : { kind: 'inline', cell: s.cell, bit: s.offset, ref: s.refOffset };
  return { cell, info, init, body };
}

/**
 * _ fixed_prefix_length:(Maybe (## 5)) special:(Maybe TickTock) code:(Maybe ^Cell) data:(Maybe ^Cell)
 *   library:(HashmapE 256 SimpleLib) = StateInit;
 */
export type StateInit = { fixedPrefixLength?: number; special?: { tick: boolean; tock: boolean }; code?: number; data?: number; library?: number };

export function loadStateInit(s: Slice): StateInit {
  const fixedPrefixLength = loadMaybe(s, (x) => x.loadUint(5));
  const special = loadMaybe(s, (x) => ({ tick: x.loadBit(), tock: x.loadBit() }));
  return { fixedPrefixLength, special, code: s.loadMaybeRef(), data: s.loadMaybeRef(), library: s.loadMaybeRef() };
}

function skipStateInit(s: Slice): void {
  loadStateInit(s);
}

/** The message's in-message or out-message hash path: `Message Any` in a referenced cell. */
export function loadMessageRef(s: Slice, path: string): Message {
  return loadMessage(s.loadRefSlice(path));
}

export type { MsgAddress };
