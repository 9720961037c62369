import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import type { BodyOf } from '@tonstream/contracts';
import { STONFI_PTON_V1_MASTER, STONFI_PTON_V2_MASTER, TONCO_PTON_MASTER, jettonBurn, jettonBurnNotification, jettonInternalTransfer, jettonInternalTransferNoEither, jettonMint, jettonMintLoose, jettonNotify, jettonTransfer, minterJettonMint } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext } from '../matcher.js';
import { anyOf, composite, op } from '../matcher.js';
import { readComment } from '../text.js';
import { aborted, findOp, jettonWallet, payloadBoc, raw, readAs, str } from './util.js';

/*
 * TEP-74 jettons: transfer (owner -> wallet -> wallet -> notify), burn, and the minters' mint.
 */

export type JettonTransferDetails = {
  asset: string | null;
  sender: string | null;
  receiver: string | null;
  sender_jetton_wallet: string | null;
  receiver_jetton_wallet: string | null;
  amount: string;
  comment: string | null;
  is_encrypted_comment: boolean;
  query_id: string;
  response_destination: string | null;
  custom_payload: string | null;
  forward_payload: string | null;
  forward_amount: string;
};

function payloadComment(payload: Cell | null): { comment: string | null; encrypted: boolean } {
  const c = payload ? readComment(payload) : null;
  return { comment: c?.text ?? null, encrypted: c?.encrypted ?? false };
}

/** The internal_transfer body, whichever of the two readings fits. */
export function readInternalTransfer(block: Block): BodyOf<typeof jettonInternalTransfer> | null {
  return readAs(block, jettonInternalTransfer) ?? readAs(block, jettonInternalTransferNoEither);
}

/** A jetton transfer from its `transfer` block and what followed it; null when the jetton is unknown. */
export function buildJettonTransfer(block: Block, matched: Block[], ctx: MatchContext): Block[] | null {
  const body = readAs(block, jettonTransfer);
  if (!body) return null;
  const senderWallet = block.node.destination;
  const internal = findOp(matched, jettonInternalTransfer.opcode);
  const receiverWallet = internal?.node.destination ?? null;
  const senderInfo = jettonWallet(ctx, senderWallet);
  const receiverInfo = jettonWallet(ctx, receiverWallet);
  const info = senderInfo ?? receiverInfo;
  if (!info) return null;
  const internalBody = internal ? readInternalTransfer(internal) : null;
  let receiver = raw(body.destination);
  let broken = false;
  if (receiverInfo && receiver !== receiverInfo.owner) {
    receiver = receiverInfo.owner;
    broken = true;
  }
  const { comment, encrypted } = payloadComment(body.forward_payload);
  const details: JettonTransferDetails = {
    asset: info.jetton,
    sender: senderInfo?.owner ?? block.node.source,
    receiver,
    sender_jetton_wallet: senderWallet,
    receiver_jetton_wallet: receiverWallet,
    amount: (internalBody?.amount ?? body.amount).toString(),
    comment,
    is_encrypted_comment: encrypted,
    query_id: body.query_id.toString(),
    response_destination: raw(body.response_destination),
    custom_payload: payloadBoc(body.custom_payload),
    forward_payload: payloadBoc(body.forward_payload),
    forward_amount: body.forward_ton_amount.toString(),
  };
  const result = composite('jetton_transfer', [block, ...matched], {
    details,
    addresses: [details.sender, senderWallet, receiver, receiverWallet],
  }, block.failed || aborted(internal));
  if (result) result[0].broken = broken;
  return result;
}

export const jettonTransferMatcher: ActionMatcher = {
  name: 'jetton_transfer',
  ...op(jettonTransfer.opcode),
  // Proxy-TON wallets are ptonTransferMatcher's.
  test: (b, ctx) => b.type === 'call_contract' && b.opcode === jettonTransfer.opcode && !isPtonWallet(ctx, b.node.destination),
  // As toncenter: no internal_transfer (the sender's wallet refused), no jetton_transfer; the call
  // and its bounce stay basic actions.
  child: op(jettonInternalTransfer.opcode, { child: op(jettonNotify.opcode, { optional: true }) }),
  build: buildJettonTransfer,
};

/**
 * A burn's amount as toncenter reads a burn: op, query_id, amount, response destination; the custom
 * payload after it is not read, so a burn without its `Maybe` bit still counts.
 */
export function burnAmount(block: Block): bigint | null {
  try {
    const s = block.node.body().beginParse();
    s.skip(32 + 64);
    const amount = s.loadCoins();
    s.loadAddressAny();
    return amount;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export const jettonBurnMatcher: ActionMatcher = {
  name: 'jetton_burn',
  ...op(jettonBurn.opcode),
  child: op(jettonBurnNotification.opcode, { optional: true }),
  build(block, matched, ctx) {
    const amount = burnAmount(block);
    const wallet = jettonWallet(ctx, block.node.destination);
    if (amount === null || !wallet) return null;
    return composite('jetton_burn', [block, ...matched], {
      details: { owner: wallet.owner, owner_jetton_wallet: block.node.destination, asset: wallet.jetton, amount: amount.toString() },
      addresses: [wallet.owner, block.node.destination],
    }, block.failed);
  },
};

/** Jetton amount inside a minter's `master_msg` (an internal_transfer: op, query_id, amount). */
function masterMsgAmount(cell: Cell): bigint | null {
  try {
    const s = cell.beginParse();
    s.loadUint(32);
    s.loadUintBig(64);
    return s.loadCoins();
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export const jettonMintMatcher: ActionMatcher = {
  name: 'jetton_mint',
  ...op([jettonMint.opcode, minterJettonMint.opcode]),
  child: anyOf([
    op(jettonInternalTransfer.opcode, { optional: true, child: op(jettonNotify.opcode, { optional: true }) }),
    op(jettonNotify.opcode, { optional: true }),
  ], { optional: true }),
  build(block, matched, ctx) {
    const isOp21 = block.opcode === minterJettonMint.opcode;
    const body = isOp21 ? readAs(block, minterJettonMint) : (readAs(block, jettonMint) ?? readAs(block, jettonMintLoose));
    if (!body) return null;
    const internal = findOp(matched, jettonInternalTransfer.opcode);
    const receiverWallet = internal?.node.destination ?? null;
    const wallet = jettonWallet(ctx, receiverWallet);
    let details: Record<string, unknown>;
    let failed: boolean;
    if (!block.failed && internal && wallet) {
      const internalBody = readInternalTransfer(internal);
      details = {
        asset: wallet.jetton,
        receiver: wallet.owner,
        receiver_jetton_wallet: receiverWallet,
        amount: str(internalBody?.amount),
        ton_amount: body.ton_amount.toString(),
      };
      failed = block.failed || aborted(internal);
    } else {
      const amount = isOp21 && 'master_msg' in body ? masterMsgAmount(body.master_msg) : null;
      details = {
        asset: block.node.destination,
        receiver: raw(body.to_address),
        receiver_jetton_wallet: null,
        amount: str(amount),
        ton_amount: body.ton_amount.toString(),
      };
      failed = true;
    }
    return composite('jetton_mint', [block, ...matched], {
      details,
      addresses: [block.node.source, details.receiver as string | null, details.receiver_jetton_wallet as string | null],
    }, failed);
  },
};

/** A jetton transfer a failed wallet external only intended (a ghost node): always unsuccessful. */
export const fallbackJettonTransferMatcher: ActionMatcher = {
  name: 'fallback_jetton_transfer',
  test: (b) => b.type === 'call_contract' && b.opcode === jettonTransfer.opcode && b.node.kind === 'ghost',
  build(block, matched, ctx) {
    const body = readAs(block, jettonTransfer);
    const senderWallet = block.node.destination;
    const wallet = jettonWallet(ctx, senderWallet);
    if (!body || !wallet) return null;
    const { comment, encrypted } = payloadComment(body.forward_payload);
    const details: JettonTransferDetails = {
      asset: wallet.jetton,
      sender: block.node.source,
      receiver: raw(body.destination),
      sender_jetton_wallet: senderWallet,
      receiver_jetton_wallet: null,
      amount: body.amount.toString(),
      comment,
      is_encrypted_comment: encrypted,
      query_id: body.query_id.toString(),
      response_destination: raw(body.response_destination),
      custom_payload: payloadBoc(body.custom_payload),
      forward_payload: payloadBoc(body.forward_payload),
      forward_amount: body.forward_ton_amount.toString(),
    };
    // A ghost's destinations never ran, so they are not the action's accounts.
    return composite('jetton_transfer', [block, ...matched], { details, addresses: [block.node.source, senderWallet] }, true);
  },
};

/** Jetton masters whose "wallets" are proxies for TON (transfers there carry TON, not jettons). */
export const PTON_MASTERS: ReadonlySet<string> = new Set([STONFI_PTON_V1_MASTER, STONFI_PTON_V2_MASTER, TONCO_PTON_MASTER]);

function isPtonWallet(ctx: MatchContext, address: string | null): boolean {
  return PTON_MASTERS.has(jettonWallet(ctx, address)?.jetton ?? '');
}

/** A transfer to a proxy-TON wallet: a jetton_transfer without internal_transfer (no receiving wallet). */
export const ptonTransferMatcher: ActionMatcher = {
  name: 'pton_transfer',
  test: (b, ctx) => b.type === 'call_contract' && b.opcode === jettonTransfer.opcode && isPtonWallet(ctx, b.node.destination),
  child: op(jettonNotify.opcode, { optional: true }),
  build(block, matched, ctx) {
    const body = readAs(block, jettonTransfer);
    const wallet = jettonWallet(ctx, block.node.destination);
    if (!body || !wallet) return null;
    const { comment, encrypted } = payloadComment(body.forward_payload);
    const details: JettonTransferDetails = {
      asset: wallet.jetton,
      sender: block.node.source,
      receiver: raw(body.destination),
      sender_jetton_wallet: null,
      receiver_jetton_wallet: null,
      amount: body.amount.toString(),
      comment,
      is_encrypted_comment: encrypted,
      query_id: body.query_id.toString(),
      response_destination: raw(body.response_destination),
      custom_payload: payloadBoc(body.custom_payload),
      forward_payload: payloadBoc(body.forward_payload),
      forward_amount: body.forward_ton_amount.toString(),
    };
    return composite('jetton_transfer', [block, ...matched], { details, addresses: [details.sender, details.receiver] }, block.failed);
  },
};
