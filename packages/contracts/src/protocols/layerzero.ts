import type { Cell, Slice } from '@ton/core';

/*
 * LayerZero v2 on TON. Its contracts exchange "typed cells": every object starts with a 350-bit
 * header (class info, then filler ones) before its fields; a message body is
 * `op:uint32 query_id:uint64 donation:Coins origin:MsgAddress md:^Cell`. Opcodes and object layouts
 * as LayerZero's FunC sources define them (quoted in toncenter/ton-indexer
 * indexer/events/blocks/messages/layerzero.py). Not in MESSAGE_LAYOUTS.
 */

export const LAYERZERO_OPS = {
  event: 0xe33b9873,
  endpointSend: 0xdd4ea3b4,
  channelSend: 0x536feb09,
  msglibConnectionSend: 0x4002b790,
  ulnSend: 0x5de68393,
  msglibSendCallback: 0x421c1a25,
  channelSendCallback: 0xa2b5fbae,
  channelLzReceivePrepare: 0x22f3ac09,
  lzReceivePrepare: 0x97df404c,
  lzReceiveLock: 0xb7680bc6,
  lzReceiveExecute: 0x0c7b8418,
  lzReceiveExecuteCallback: 0xcaae25a1,
  ulnCommitPacket: 0x28b97077,
  ulnConnectionCommitPacket: 0xf9d37b80,
  endpointCommitPacket: 0x5dab749a,
  channelCommitPacket: 0x5388cd88,
  msglibConnectionCommitPacketCallback: 0x5e178f33,
  dvnVerify: 0xa0d51a8d,
  proxyCallContract: 0x09f047d9,
  ulnVerify: 0x994aaf4e,
  ulnConnectionVerify: 0x4ec8f80a,
  ulnConnectionVerifyCallback: 0x3cb38090,
} as const;

/** Every typed cell's header: class info and filler, 350 bits in all. */
const HEADER_BITS = 350;

/** A 256-bit id (OApp address, guid, msglib) as LayerZero tooling prints it: 0x-hex without leading zeros. */
function hex(s: Slice, bits: number): string {
  return `0x${s.loadUintBig(bits).toString(16)}`;
}

export type LzPacket = { src_oapp: string; dst_oapp: string; src_eid: number; dst_eid: number; nonce: number; guid: string; message: string };

/** `lz::Packet`: header, refs [path, message], nonce:uint64, guid:uint256; path = src_eid src_oapp dst_eid dst_oapp. */
export function readLzPacket(cell: Cell): LzPacket {
  const s = cell.beginParse();
  s.skip(HEADER_BITS);
  const path = s.loadRef().beginParse();
  path.skip(HEADER_BITS);
  const message = s.loadRef();
  const srcEid = path.loadUint(32);
  const srcOapp = hex(path, 256);
  const dstEid = path.loadUint(32);
  const dstOapp = hex(path, 256);
  const bytes = message.bits.subbuffer(0, message.bits.length - (message.bits.length % 8)) ?? Buffer.alloc(0);
  return {
    src_oapp: srcOapp,
    dst_oapp: dstOapp,
    src_eid: srcEid,
    dst_eid: dstEid,
    nonce: Number(s.loadUintBig(64)),
    guid: hex(s, 256),
    message: `0x${bytes.toString('hex')}`,
  };
}

export type LzSend = { send_request_id: number; msglib_manager: string; msglib: string; native_fee: bigint; zro_fee: bigint; packet: LzPacket };

/** `md::LzSend`: header, send_request_id:uint64, msglib_manager:uint256, msglib:uint256, refs [packet, extra options, fees]. */
export function readLzSend(cell: Cell): LzSend {
  const s = cell.beginParse();
  s.skip(HEADER_BITS);
  const sendRequestId = Number(s.loadUintBig(64));
  const msglibManager = hex(s, 256);
  const msglib = hex(s, 256);
  const packet = readLzPacket(s.loadRef());
  s.loadRef();
  const fees = s.loadRef().beginParse();
  fees.skip(256);
  return { send_request_id: sendRequestId, msglib_manager: msglibManager, msglib, native_fee: fees.loadUintBig(128), zro_fee: fees.loadUintBig(128), packet };
}

/** `md::VerificationStatus` statuses of a ULN connection verify callback. */
const VERIFY_STATUS: Readonly<Record<number, string>> = { 0x3bbc306b: 'succeeded', 0x7fcbb4ac: 'nonce_out_of_range', 0x29c53fab: 'dvn_not_configured' };

/** `md::VerificationStatus`: header, nonce:uint64, status:uint32. */
export function readLzVerificationStatus(cell: Cell): { nonce: number; status: string } {
  const s = cell.beginParse();
  s.skip(HEADER_BITS);
  const nonce = Number(s.loadUintBig(64));
  const code = s.loadUint(32);
  return { nonce, status: VERIFY_STATUS[code] ?? `unknown_${code}` };
}
