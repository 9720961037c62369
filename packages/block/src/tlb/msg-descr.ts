import type { Slice } from '../boc/slice.js';
import { skipCurrencyCollection } from './common.js';
import { keyToHex, walkHashmapAugE } from './hashmap.js';

/** InMsg constructor names (block.tlb), e.g. `msg_import_ext`, `msg_import_deferred_fin`. */
export type InMsgKind =
  | 'msg_import_ext'
  | 'msg_import_ihr'
  | 'msg_import_imm'
  | 'msg_import_fin'
  | 'msg_import_tr'
  | 'msg_discard_fin'
  | 'msg_discard_tr'
  | 'msg_import_deferred_fin'
  | 'msg_import_deferred_tr';

export type OutMsgKind =
  | 'msg_export_ext'
  | 'msg_export_new'
  | 'msg_export_imm'
  | 'msg_export_tr'
  | 'msg_export_deq_imm'
  | 'msg_export_deq'
  | 'msg_export_deq_short'
  | 'msg_export_tr_req'
  | 'msg_export_new_defer'
  | 'msg_export_deferred_tr';

/** One InMsgDescr / OutMsgDescr entry: the message hash (the dictionary key) and the constructor. */
export type MsgDescrEntry<K> = { msgHash: string; kind: K };

const IN_MSG_TAGS: Record<number, InMsgKind> = {
  0b000: 'msg_import_ext',
  0b010: 'msg_import_ihr',
  0b011: 'msg_import_imm',
  0b100: 'msg_import_fin',
  0b101: 'msg_import_tr',
  0b110: 'msg_discard_fin',
  0b111: 'msg_discard_tr',
};

/** InMsg tag: 3 bits, except $00100 / $00101 (deferred imports, 2024+). */
export function loadInMsgKind(s: Slice): InMsgKind {
  const tag = s.loadUint(3);
  if (tag === 0b001) {
    const sub = s.loadUint(2);
    if (sub === 0) return 'msg_import_deferred_fin';
    if (sub === 1) return 'msg_import_deferred_tr';
    s.fail(`unknown InMsg tag 001${sub.toString(2).padStart(2, '0')}`);
  }
  return IN_MSG_TAGS[tag];
}

/** OutMsg tag: $000 ext, $001 new, $010 imm, $011 tr, $100 deq_imm, $10100 new_defer, $10101 deferred_tr, $1100 deq, $1101 deq_short, $111 tr_req. */
export function loadOutMsgKind(s: Slice): OutMsgKind {
  const tag = s.loadUint(3);
  switch (tag) {
    case 0b000:
      return 'msg_export_ext';
    case 0b001:
      return 'msg_export_new';
    case 0b010:
      return 'msg_export_imm';
    case 0b011:
      return 'msg_export_tr';
    case 0b100:
      return 'msg_export_deq_imm';
    case 0b101: {
      const sub = s.loadUint(2);
      if (sub === 0) return 'msg_export_new_defer';
      if (sub === 1) return 'msg_export_deferred_tr';
      return s.fail(`unknown OutMsg tag 101${sub.toString(2).padStart(2, '0')}`);
    }
    case 0b110:
      return s.loadBit() ? 'msg_export_deq_short' : 'msg_export_deq';
    default:
      return 'msg_export_tr_req';
  }
}

/** _ (HashmapAugE 256 InMsg ImportFees) = InMsgDescr;  import_fees$_ fees_collected:Grams value_imported:CurrencyCollection */
export function loadInMsgDescr(s: Slice): MsgDescrEntry<InMsgKind>[] {
  const out: MsgDescrEntry<InMsgKind>[] = [];
  walkHashmapAugE(s, 256, (key, v) => out.push({ msgHash: keyToHex(key), kind: loadInMsgKind(v) }), skipImportFees);
  return out;
}

/** _ (HashmapAugE 256 OutMsg CurrencyCollection) = OutMsgDescr; */
export function loadOutMsgDescr(s: Slice): MsgDescrEntry<OutMsgKind>[] {
  const out: MsgDescrEntry<OutMsgKind>[] = [];
  walkHashmapAugE(s, 256, (key, v) => out.push({ msgHash: keyToHex(key), kind: loadOutMsgKind(v) }), skipCurrencyCollection);
  return out;
}

function skipImportFees(s: Slice): void {
  s.loadCoins();
  skipCurrencyCollection(s);
}
