import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import type { LzPacket } from '@tonstream/contracts';
import { LAYERZERO_OPS as OP, readLzPacket, readLzSend, readLzVerificationStatus } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, Matcher } from '../matcher.js';
import { composite, ofType, op } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findOp } from './util.js';

/*
 * LayerZero v2: send (OApp -> endpoint -> channel -> msglib connection -> ULN -> callbacks), send
 * of tokens (an OFT jetton transfer that triggers a send), receive (executor -> channel -> OApp),
 * packet commit and DVN verification. Packet data comes from the typed cells the contracts pass.
 */

const event = (optional = false): Matcher => op(OP.event, { optional });
const tonBack = (): Matcher => ofType('ton_transfer', { optional: true });

/** A typed cell down a path of first refs (the message's `md` and what it wraps), or null. */
function refPath(block: Block, depth: number): Cell | null {
  let cell: Cell | undefined = block.node.body();
  for (let i = 0; i < depth && cell; i += 1) cell = cell.refs[0];
  return cell ?? null;
}

function packetDetails(p: LzPacket) {
  return { src_oapp: p.src_oapp, dst_oapp: p.dst_oapp, src_eid: p.src_eid, dst_eid: p.dst_eid, nonce: p.nonce, guid: p.guid, message: p.message };
}

/** The send's data, from the channel's callback to the OApp (md -> ... -> lzSend). */
function sendData(block: Block, matched: Block[]) {
  const channelSend = findOp(matched, OP.channelSend);
  const ulnSend = findOp(matched, OP.ulnSend);
  const callback = findOp(matched, OP.channelSendCallback);
  const cell = callback ? refPath(callback, 3) : null;
  if (!channelSend || !ulnSend || !cell) return null;
  let lzSend;
  try {
    lzSend = readLzSend(cell);
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
  return {
    layerzero_send_data: {
      send_request_id: lzSend.send_request_id,
      msglib_manager: lzSend.msglib_manager,
      msglib: lzSend.msglib,
      uln: ulnSend.node.destination,
      native_fee: Number(lzSend.native_fee),
      zro_fee: Number(lzSend.zro_fee),
      endpoint: block.node.destination,
      channel: channelSend.node.destination,
    },
    layerzero_packet_data: packetDetails(lzSend.packet),
  };
}

export const layerzeroSendMatcher: ActionMatcher = {
  name: 'layerzero_send',
  ...op(OP.endpointSend),
  child: op(OP.channelSend, {
    child: op(OP.msglibConnectionSend, {
      child: op(OP.ulnSend, {
        child: op(OP.msglibSendCallback, {
          children: [event(), tonBack(), tonBack(), tonBack(), tonBack(), tonBack(), op(OP.channelSendCallback, { children: [event(true), tonBack()] })],
        }),
      }),
    }),
  }),
  build(block, matched) {
    const data = sendData(block, matched);
    if (!data) return null;
    const details = { initiator: block.node.source, ...data };
    return composite('layerzero_send', [block, ...matched], { details, addresses: [block.node.source, block.node.destination] }, block.failed);
  },
};

/** An OFT transfer: the user's jetton transfer to the OApp and the send it triggered. */
export const layerzeroSendTokensMatcher: ActionMatcher = {
  name: 'layerzero_send_tokens',
  ...ofType('layerzero_send'),
  parent: ofType('jetton_transfer', { child: event() }),
  build(block, matched) {
    const transfer = matched.find((b) => b.type === 'jetton_transfer');
    if (!transfer) return null;
    const t = transfer.data!.details as JettonTransferDetails;
    const send = block.data!.details;
    const details = {
      sender: t.sender,
      sender_wallet: t.sender_jetton_wallet,
      oapp: t.receiver,
      oapp_wallet: t.receiver_jetton_wallet,
      asset: t.asset,
      amount: t.amount,
      layerzero_send_data: send.layerzero_send_data,
      layerzero_packet_data: send.layerzero_packet_data,
    };
    return composite('layerzero_send_tokens', [block, ...matched], { details, addresses: [t.sender, t.sender_jetton_wallet, t.receiver, t.receiver_jetton_wallet] }, block.failed || transfer.failed);
  },
};

export const layerzeroReceiveMatcher: ActionMatcher = {
  name: 'layerzero_receive',
  ...op(OP.channelLzReceivePrepare),
  children: [
    tonBack(),
    op(OP.lzReceivePrepare, {
      child: op(OP.lzReceiveLock, {
        child: op(OP.lzReceiveExecute, { children: [event(true), op(OP.lzReceiveExecuteCallback, { children: [event(true), tonBack()] })] }),
      }),
    }),
  ],
  build(block, matched) {
    // The channel's execute order to the OApp carries the packet (md -> packet).
    const execute = findOp(matched, OP.lzReceiveExecute);
    const cell = execute ? refPath(execute, 2) : null;
    if (!execute || !cell) return null;
    let packet;
    try {
      packet = readLzPacket(cell);
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const oapp = execute.node.destination;
    if (!oapp || BigInt(`0x${oapp.split(':')[1]}`) !== BigInt(packet.dst_oapp)) return null;
    const details = { sender: block.node.source, oapp, channel: execute.node.source, layerzero_packet_data: packetDetails(packet) };
    return composite('layerzero_receive', [block, ...matched], { details, addresses: [details.sender, oapp, details.channel] }, block.failed);
  },
};

export const layerzeroCommitPacketMatcher: ActionMatcher = {
  name: 'layerzero_commit_packet',
  ...op(OP.ulnCommitPacket),
  child: op(OP.ulnConnectionCommitPacket, {
    child: op(OP.endpointCommitPacket, {
      child: op(OP.channelCommitPacket, { children: [event(true), op(OP.msglibConnectionCommitPacketCallback, { optional: true, child: tonBack() })] }),
    }),
  }),
  build(block, matched) {
    const connection = findOp(matched, OP.ulnConnectionCommitPacket);
    const endpoint = findOp(matched, OP.endpointCommitPacket);
    const channel = findOp(matched, OP.channelCommitPacket);
    const callback = findOp(matched, OP.msglibConnectionCommitPacketCallback);
    const cell = channel ? refPath(channel, 2) : null;
    if (!connection || !endpoint || !channel || !callback || !cell) return null;
    let packet;
    try {
      packet = readLzPacket(cell);
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const details = {
      sender: block.node.source,
      endpoint: endpoint.node.destination,
      uln: connection.node.destination,
      uln_connection: connection.node.destination,
      channel: channel.node.destination,
      msglib_connection: callback.node.destination,
      layerzero_packet_data: packetDetails(packet),
    };
    return composite('layerzero_commit_packet', [block, ...matched], { details, addresses: [details.sender, details.uln, details.endpoint, details.channel] }, block.failed);
  },
};

export const layerzeroDvnVerifyMatcher: ActionMatcher = {
  name: 'layerzero_dvn_verify',
  ...op(OP.dvnVerify),
  child: op(OP.proxyCallContract, {
    child: op(OP.ulnVerify, {
      child: op(OP.ulnConnectionVerify, { children: [event(true), op(OP.ulnConnectionVerifyCallback, { optional: true, child: tonBack() })] }),
    }),
  }),
  build(block, matched) {
    const proxy = findOp(matched, OP.proxyCallContract);
    const uln = findOp(matched, OP.ulnVerify);
    const connection = findOp(matched, OP.ulnConnectionVerify);
    const callback = findOp(matched, OP.ulnConnectionVerifyCallback);
    const cell = callback ? refPath(callback, 2) : null;
    if (!proxy || !uln || !connection || !callback || !cell) return null;
    let status;
    try {
      status = readLzVerificationStatus(cell);
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const details = {
      initiator: block.node.source,
      nonce: status.nonce,
      status: status.status,
      dvn: block.node.destination,
      proxy: proxy.node.destination,
      uln: uln.node.destination,
      uln_connection: connection.node.destination,
    };
    return composite('layerzero_dvn_verify', [block, ...matched], { details, addresses: [details.initiator, details.dvn] }, block.failed);
  },
};

export const layerzeroMatchers: ActionMatcher[] = [layerzeroSendMatcher, layerzeroSendTokensMatcher, layerzeroReceiveMatcher, layerzeroCommitPacketMatcher, layerzeroDvnVerifyMatcher];
