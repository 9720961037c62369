import type { MsgAddress } from '../tlb/common.js';
import type { Cell } from './cell.js';
import { BuildError } from './errors.js';
import {
  buildMsgEnvelope,
  type EnvelopeOptions,
  exportDeqImm,
  exportExt,
  exportImm,
  exportNew,
  importExt,
  importFin,
  importImm,
  type InMsgEntry,
  type OutMsgEntry,
} from './msg-descr.js';
import type { MsgSummary, TxSummary } from './tx-summary.js';

export type MsgRoutingOptions = {
  /** Envelope fields for internal messages, for all or per message hash. Default: v2, use_dest_bits 96/96. */
  envelope?: EnvelopeOptions | ((msgHash: string) => EnvelopeOptions);
  /** Add msg_export_deq_imm for imported messages that were sent from this shard. Default true. */
  dequeueOwn?: boolean;
};

/**
 * The InMsgDescr and OutMsgDescr entries a collator writes for these transactions of one shard:
 * - inbound external: msg_import_ext;
 * - inbound internal sent by a transaction of this block: msg_import_imm, and msg_export_imm for
 *   the sender, its reimport the same InMsg;
 * - other inbound internal: msg_import_fin (plus msg_export_deq_imm when the sender is in this shard);
 * - outbound external: msg_export_ext; outbound internal not delivered here: msg_export_new.
 * The forwarding fee remaining is the message's fwd_fee.
 */
export function deriveMsgDescr(txs: TxSummary[], shard: { workchain: number; shard: bigint }, opts: MsgRoutingOptions = {}): { inMsgs: InMsgEntry[]; outMsgs: OutMsgEntry[] } {
  const envelopeOpts = (hash: string) => (typeof opts.envelope === 'function' ? opts.envelope(hash) : (opts.envelope ?? {}));
  const created = new Map<string, { msg: MsgSummary; tx: TxSummary }>();
  for (const tx of txs) {
    for (const msg of tx.outMsgs) {
      if (created.has(msg.hash)) throw new BuildError(`message ${msg.hash} is created twice`);
      created.set(msg.hash, { msg, tx });
    }
  }
  const inMsgs: InMsgEntry[] = [];
  const outMsgs: OutMsgEntry[] = [];
  const delivered = new Map<string, { envelope: Cell; inMsg: Cell }>();
  for (const tx of txs) {
    const msg = tx.inMsg;
    if (!msg) continue;
    if (msg.info.type === 'external-in') {
      inMsgs.push(importExt(msg.cell, tx.cell, msg.hash));
      continue;
    }
    if (msg.info.type !== 'internal') throw new BuildError(`transaction ${tx.hash}: inbound message is ${msg.info.type}`);
    if (delivered.has(msg.hash)) throw new BuildError(`message ${msg.hash} is delivered twice`);
    const fwdFee = msg.info.fwdFee;
    const envelope = buildMsgEnvelope(msg.cell, fwdFee, envelopeOpts(msg.hash));
    const entry = created.has(msg.hash) ? importImm(envelope, tx.cell, fwdFee, msg.hash) : importFin(envelope, tx.cell, msg.info, fwdFee, msg.hash);
    inMsgs.push(entry);
    delivered.set(msg.hash, { envelope, inMsg: entry.inMsg });
    if (!created.has(msg.hash) && (opts.dequeueOwn ?? true) && inShard(msg.info.src, shard)) {
      outMsgs.push(exportDeqImm(envelope, entry.inMsg, msg.hash));
    }
  }
  for (const [hash, { msg, tx }] of created) {
    if (msg.info.type === 'external-out') {
      outMsgs.push(exportExt(msg.cell, tx.cell, hash));
    } else if (msg.info.type === 'internal') {
      const here = delivered.get(hash);
      if (here) outMsgs.push(exportImm(here.envelope, tx.cell, here.inMsg, hash));
      else outMsgs.push(exportNew(buildMsgEnvelope(msg.cell, msg.info.fwdFee, envelopeOpts(hash)), tx.cell, msg.info, msg.info.fwdFee, hash));
    } else {
      throw new BuildError(`transaction ${tx.hash} creates an external-in message`);
    }
  }
  return { inMsgs, outMsgs };
}

/** Whether a std address lies in the shard (workchain and the shard's prefix bits). */
export function inShard(addr: MsgAddress, shard: { workchain: number; shard: bigint }): boolean {
  if (addr.type !== 'std' || addr.workchain !== shard.workchain) return false;
  const low = shard.shard & -shard.shard;
  const mask = ((1n << 64n) - 1n) ^ ((low << 1n) - 1n);
  return (BigInt(`0x${addr.hash.slice(0, 16)}`) & mask) === (shard.shard & mask);
}
