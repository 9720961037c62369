import type { MsgAddress } from '../tlb/common.js';
import type { IntMsgInfo } from '../tlb/message.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { addCurrency, type CurrencyInput, currencyAugmentation, type ImportFees, importFeesAugmentation, ZERO_CURRENCY, ZERO_IMPORT_FEES } from './currency.js';
import { storeHashmapAugE } from './dict.js';
import { BuildError } from './errors.js';

/** msg_metadata#0 depth:uint32 initiator_addr:MsgAddressInt initiator_lt:uint64 = MsgMetadata; */
export type MsgMetadata = { depth: number; initiatorAddr: MsgAddress | string; initiatorLt: bigint };

/**
 * Envelope fields besides the message and its remaining forwarding fee. Intermediate addresses are
 * interm_addr_regular$0 use_dest_bits:(#<= 96); the default 96/96 is what a collator writes when
 * sender and receiver share the shard.
 */
export type EnvelopeOptions = { version?: 4 | 5; curAddr?: number; nextAddr?: number; emittedLt?: bigint; metadata?: MsgMetadata };

/**
 * msg_envelope#4 cur_addr:IntermediateAddress next_addr:IntermediateAddress fwd_fee_remaining:Grams msg:^(Message Any) = MsgEnvelope;
 * msg_envelope_v2#5 cur_addr next_addr fwd_fee_remaining msg:^(Message Any) emitted_lt:(Maybe uint64) metadata:(Maybe MsgMetadata) = MsgEnvelope;
 * Version 5 (the default) is what validators write since 2024.
 */
export function buildMsgEnvelope(msg: Cell, fwdFeeRemaining: bigint, opts: EnvelopeOptions = {}): Cell {
  const version = opts.version ?? 5;
  if (version === 4 && (opts.emittedLt !== undefined || opts.metadata)) throw new BuildError('msg_envelope#4 has no emitted_lt or metadata');
  const b = new Builder().storeUint(version, 4);
  storeIntermediateAddress(b, opts.curAddr ?? 96);
  storeIntermediateAddress(b, opts.nextAddr ?? 96);
  b.storeCoins(fwdFeeRemaining).storeRef(msg);
  if (version === 5) {
    if (opts.emittedLt === undefined) b.storeBit(0);
    else b.storeBit(1).storeUint(opts.emittedLt, 64);
    if (!opts.metadata) b.storeBit(0);
    else b.storeBit(1).storeUint(0, 4).storeUint(opts.metadata.depth, 32).storeAddress(opts.metadata.initiatorAddr).storeUint(opts.metadata.initiatorLt, 64);
  }
  return b.endCell();
}

function storeIntermediateAddress(b: Builder, useDestBits: number): void {
  if (!Number.isInteger(useDestBits) || useDestBits < 0 || useDestBits > 96) throw new BuildError(`use_dest_bits ${useDestBits} is not 0..96`);
  b.storeBit(0).storeUint(useDestBits, 7);
}

/** An InMsgDescr leaf: the InMsg (stored inline in the leaf) and its ImportFees extra. */
export type InMsgEntry = { msgHash: string; inMsg: Cell; fees: ImportFees };

/** An OutMsgDescr leaf: the OutMsg (stored inline in the leaf) and its exported value. */
export type OutMsgEntry = { msgHash: string; outMsg: Cell; exported: CurrencyInput };

/** msg_import_ext$000 msg:^(Message Any) transaction:^Transaction = InMsg; no fees, no value. */
export function importExt(msg: Cell, tx: Cell, msgHash = msg.hashHex()): InMsgEntry {
  return { msgHash, inMsg: new Builder().storeUint(0b000, 3).storeRef(msg).storeRef(tx).endCell(), fees: ZERO_IMPORT_FEES };
}

/** msg_import_imm$011 in_msg:^MsgEnvelope transaction:^Transaction fwd_fee:Grams = InMsg; fees_collected = fwd_fee, nothing imported. */
export function importImm(envelope: Cell, tx: Cell, fwdFee: bigint, msgHash: string): InMsgEntry {
  const inMsg = new Builder().storeUint(0b011, 3).storeRef(envelope).storeRef(tx).storeCoins(fwdFee).endCell();
  return { msgHash, inMsg, fees: { feesCollected: fwdFee, valueImported: ZERO_CURRENCY } };
}

/**
 * msg_import_fin$100 in_msg:^MsgEnvelope transaction:^Transaction fwd_fee:Grams = InMsg;
 * fees_collected = fwd_fee (the envelope's fwd_fee_remaining), value_imported = value + ihr_fee + fwd_fee.
 */
export function importFin(envelope: Cell, tx: Cell, info: IntMsgInfo, fwdFeeRemaining: bigint, msgHash: string): InMsgEntry {
  const inMsg = new Builder().storeUint(0b100, 3).storeRef(envelope).storeRef(tx).storeCoins(fwdFeeRemaining).endCell();
  return { msgHash, inMsg, fees: { feesCollected: fwdFeeRemaining, valueImported: carriedValue(info, fwdFeeRemaining) } };
}

/** msg_export_ext$000 msg:^(Message Any) transaction:^Transaction = OutMsg; external messages carry no value. */
export function exportExt(msg: Cell, tx: Cell, msgHash = msg.hashHex()): OutMsgEntry {
  return { msgHash, outMsg: new Builder().storeUint(0b000, 3).storeRef(msg).storeRef(tx).endCell(), exported: ZERO_CURRENCY };
}

/** msg_export_new$001 out_msg:^MsgEnvelope transaction:^Transaction = OutMsg; exports value + ihr_fee + fwd_fee_remaining. */
export function exportNew(envelope: Cell, tx: Cell, info: IntMsgInfo, fwdFeeRemaining: bigint, msgHash: string): OutMsgEntry {
  const outMsg = new Builder().storeUint(0b001, 3).storeRef(envelope).storeRef(tx).endCell();
  return { msgHash, outMsg, exported: carriedValue(info, fwdFeeRemaining) };
}

/** msg_export_imm$010 out_msg:^MsgEnvelope transaction:^Transaction reimport:^InMsg = OutMsg; delivered in this block, nothing exported. */
export function exportImm(envelope: Cell, tx: Cell, reimport: Cell, msgHash: string): OutMsgEntry {
  return { msgHash, outMsg: new Builder().storeUint(0b010, 3).storeRef(envelope).storeRef(tx).storeRef(reimport).endCell(), exported: ZERO_CURRENCY };
}

/** msg_export_deq_imm$100 out_msg:^MsgEnvelope reimport:^InMsg = OutMsg; dequeues a message of this shard imported here. */
export function exportDeqImm(envelope: Cell, reimport: Cell, msgHash: string): OutMsgEntry {
  return { msgHash, outMsg: new Builder().storeUint(0b100, 3).storeRef(envelope).storeRef(reimport).endCell(), exported: ZERO_CURRENCY };
}

/**
 * msg_export_deq_short$1101 msg_env_hash:bits256 next_workchain:int32 next_addr_pfx:uint64 import_block_lt:uint64 = OutMsg;
 * dequeues a message of this shard that another shard imported.
 */
export function exportDeqShort(d: { msgHash: string; msgEnvHash: string; nextWorkchain: number; nextAddrPfx: bigint; importBlockLt: bigint }): OutMsgEntry {
  const outMsg = new Builder().storeUint(0b1101, 4).storeHash(d.msgEnvHash).storeInt(d.nextWorkchain, 32).storeUint(d.nextAddrPfx, 64).storeUint(d.importBlockLt, 64).endCell();
  return { msgHash: d.msgHash, outMsg, exported: ZERO_CURRENCY };
}

/** value + ihr_fee + fwd_fee_remaining, with the value's extra currencies. */
function carriedValue(info: IntMsgInfo, fwdFeeRemaining: bigint): CurrencyInput {
  return addCurrency(info.value, { grams: info.ihrFee + fwdFeeRemaining });
}

/** _ (HashmapAugE 256 InMsg ImportFees) = InMsgDescr; returns the total ImportFees. */
export function storeInMsgDescr(b: Builder, entries: InMsgEntry[]): ImportFees {
  return storeHashmapAugE(
    b,
    256,
    entries.map((e) => ({ key: e.msgHash, extra: e.fees, store: (v: Builder) => v.storeCellContents(e.inMsg) })),
    importFeesAugmentation,
  );
}

/** _ (HashmapAugE 256 OutMsg CurrencyCollection) = OutMsgDescr; returns the total exported value. */
export function storeOutMsgDescr(b: Builder, entries: OutMsgEntry[]): CurrencyInput {
  return storeHashmapAugE(
    b,
    256,
    entries.map((e) => ({ key: e.msgHash, extra: e.exported, store: (v: Builder) => v.storeCellContents(e.outMsg) })),
    currencyAugmentation,
  );
}
