import { rethrowBugs } from '@tonstream/errors';
import { STONFI_EXIT, stonfiPaymentRequest, stonfiSwap, cellFromBase64 } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher } from '../matcher.js';
import { composite, ofType, op } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { findBlocks, jettonWallet, raw, readAs } from './util.js';

/*
 * STON.fi v1 swaps: the user's jetton (or pTON) transfer to the router, router -> pool `swap`,
 * pool -> router `payment_request`, and the router's transfer of the result.
 */

type Transfer = { asset: string | null; amount: string | null; source: string | null; source_jetton_wallet: string | null; destination: string | null; destination_jetton_wallet: string | null };

const SENDER_CODES: number[] = [STONFI_EXIT.swapOk, STONFI_EXIT.noLiquidity, STONFI_EXIT.reserveError];

function transferOf(b: Block): JettonTransferDetails {
  return b.data!.details as JettonTransferDetails;
}

/** Whether a jetton_transfer composite moved real jettons (it has an internal_transfer) rather than pTON. */
function hasWallets(b: Block): boolean {
  return transferOf(b).sender_jetton_wallet !== null;
}

/** The swap request a user put in the forward payload of the incoming transfer (wanted token's router wallet, receiver). */
function swapPayload(payload: string | null): { jettonWallet: string | null; userAddress: string | null } | null {
  if (!payload) return null;
  try {
    const s = cellFromBase64(payload).beginParse();
    if (s.loadUint(32) !== stonfiSwap.opcode) return null;
    const jettonWallet = raw(s.loadAddress());
    s.loadCoins();
    return { jettonWallet, userAddress: raw(s.loadAddress()) };
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
}

export const stonfiSwapMatcher: ActionMatcher = {
  name: 'stonfi_swap',
  ...ofType('jetton_transfer'),
  child: { ...op(stonfiSwap.opcode), child: { ...op(stonfiPaymentRequest.opcode), child: ofType('jetton_transfer') } },
  build(block, matched, ctx) {
    const swapBlock = findBlocks(matched, (b) => b.type === 'call_contract' && b.opcode === stonfiSwap.opcode)[0];
    const swap = swapBlock ? readAs(swapBlock, stonfiSwap) : null;
    if (!swap) return null;
    let outAmount: bigint | null = null;
    let outWallet: string | null = null;
    let outgoing: Block | undefined;
    let chosen: Block | undefined;
    let success = false;
    const requests = matched.filter((b) => b.type === 'call_contract' && b.opcode === stonfiPaymentRequest.opcode);
    for (const request of requests) {
      const body = readAs(request, stonfiPaymentRequest);
      if (!body) continue;
      const a = body.amounts;
      const [amount, token] = a.amount0_out > 0n ? [a.amount0_out, raw(a.token0_out)] : [a.amount1_out, raw(a.token1_out)];
      if (!SENDER_CODES.includes(body.exit_code)) continue;
      success = body.exit_code === STONFI_EXIT.swapOk;
      if (outAmount === null || outAmount < amount) {
        outAmount = amount;
        outWallet = token;
        outgoing = request.next.find((b) => b.type === 'jetton_transfer');
        chosen = request;
      }
    }
    if (outAmount === null || !outgoing) return null;
    const incoming = transferOf(block);
    const out = transferOf(outgoing);
    const inWallet = raw(swap.token_wallet);
    const inInfo = jettonWallet(ctx, inWallet);
    const outInfo = jettonWallet(ctx, outWallet);
    const source = raw(swap.ref.from_real_user);
    const wanted = swapPayload(incoming.forward_payload);
    const targetWallet = wanted?.jettonWallet ?? outWallet;
    const targetAsset = jettonWallet(ctx, targetWallet)?.jetton ?? null;
    const incomingTransfer: Transfer = {
      asset: inInfo?.jetton ?? null,
      amount: swap.amount.toString(),
      source,
      source_jetton_wallet: hasWallets(block) ? incoming.sender_jetton_wallet : null,
      destination: inInfo?.owner ?? null,
      destination_jetton_wallet: inWallet,
    };
    const outgoingTransfer: Transfer = {
      asset: outInfo?.jetton ?? null,
      amount: outAmount.toString(),
      source: out.sender,
      source_jetton_wallet: hasWallets(outgoing) ? out.sender_jetton_wallet : null,
      destination: hasWallets(outgoing) ? out.receiver : (wanted?.userAddress ?? raw(swap.from_user_address)),
      destination_jetton_wallet: hasWallets(outgoing) ? out.receiver_jetton_wallet : null,
    };
    const details = {
      dex: 'stonfi',
      sender: source,
      asset_in: incomingTransfer.asset,
      asset_out: targetAsset ?? outgoingTransfer.asset,
      dex_incoming_transfer: incomingTransfer,
      dex_outgoing_transfer: outgoingTransfer,
      peer_swaps: [],
    };
    // Other payment requests (referral fees) and what they paid stay actions of their own.
    const others = requests.filter((r) => r !== chosen);
    const include = [block, ...matched].filter((b) => !others.includes(b) && !(b.prev && others.includes(b.prev)));
    return composite('jetton_swap', include, {
      details,
      addresses: [source, incomingTransfer.source_jetton_wallet, outgoingTransfer.destination, targetWallet],
    }, !success);
  },
};
