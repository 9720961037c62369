import { jettonBurn, jettonBurnNotification, jettonInternalTransfer, jettonNotify, TONSTAKERS_OPS, tonstakersNftBurnNotification } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher } from '../matcher.js';
import { anyOf, composite, op } from '../matcher.js';
import { findOp, raw, readAs } from './util.js';
import { burnAmount, readInternalTransfer } from './jettons.js';

/*
 * Tonstakers (liquid staking, provider `liquid_staking`): deposit TON for tsTON, burn tsTON for an
 * immediate payout or a payout NFT (withdrawal request), and the payout when that NFT is burnt.
 */

const PROVIDER = 'liquid_staking';

export const tonstakersDepositMatcher: ActionMatcher = {
  name: 'tonstakers_deposit',
  ...op(TONSTAKERS_OPS.depositRequest),
  child: op(TONSTAKERS_OPS.mint, { optional: true, child: op(jettonInternalTransfer.opcode, { child: op(jettonNotify.opcode, { optional: true }) }) }),
  build(block, matched) {
    const transfer = findOp(matched, jettonInternalTransfer.opcode);
    // toncenter reads the asset off the mint's internal_transfer whether or not the deposit failed,
    // so a deposit that minted nothing is no stake_deposit there (its calls stay basic actions).
    if (!transfer) return null;
    const failed = block.failed;
    const msg = block.node;
    const details = {
      provider: PROVIDER,
      stake_holder: msg.source,
      pool: msg.destination,
      // The pool keeps 1 TON of every deposit as its fee.
      amount: (msg.value - 1_000_000_000n).toString(),
      tokens_minted: failed ? null : (readInternalTransfer(transfer)?.amount.toString() ?? null),
      asset: transfer.node.source,
    };
    return composite('tonstakers_deposit', [block, ...matched], { details, addresses: [msg.source, msg.destination, transfer.node.destination], publicType: 'stake_deposit' }, failed);
  },
};

export const tonstakersWithdrawMatcher: ActionMatcher = {
  name: 'tonstakers_withdraw',
  ...op(jettonBurn.opcode),
  child: op(jettonBurnNotification.opcode, {
    child: op(TONSTAKERS_OPS.withdrawRequest, {
      child: anyOf([op(TONSTAKERS_OPS.poolWithdrawal), op(TONSTAKERS_OPS.mint)]),
    }),
  }),
  build(block, matched) {
    const burnt = burnAmount(block);
    const request = findOp(matched, TONSTAKERS_OPS.withdrawRequest);
    if (burnt === null || !request) return null;
    const holder = block.node.source;
    const wallet = block.node.destination;
    // The tsTON master, which sent the request.
    const asset = request.node.source;
    const immediate = findOp(matched, TONSTAKERS_OPS.poolWithdrawal);
    if (immediate) {
      // The payout less the TON the request brought along; the tsTON burnt are the burn's amount.
      const amount = immediate.node.value - (immediate.prev?.node.value ?? 0n);
      return composite('tonstakers_withdraw', [block, ...matched], {
        details: { provider: PROVIDER, stake_holder: holder, pool: request.node.destination, amount: amount.toString(), payout_nft: null, tokens_burnt: burnt.toString(), asset },
        addresses: [holder, wallet, request.node.destination],
        publicType: 'stake_withdrawal',
      }, block.failed);
    }
    const mint = findOp(matched, TONSTAKERS_OPS.mint);
    const nft = mint?.next.find((b) => b.type === 'nft_mint') ?? mint?.next.find((b) => b.type === 'call_contract' && b.opcode === TONSTAKERS_OPS.initNft);
    return composite('tonstakers_withdraw_request', [block, ...matched], {
      details: { provider: PROVIDER, stake_holder: holder, pool: request.node.destination, payout_nft: nft?.node.destination ?? null, asset, tokens_burnt: null },
      addresses: [holder, wallet, request.node.destination],
      publicType: 'stake_withdrawal_request',
    }, block.failed || !nft);
  },
};

/** The pool (or its payout collection's sender) above a payout-NFT burn chain. */
function poolAbove(block: Block): string | null {
  const chainOps: number[] = [TONSTAKERS_OPS.nftBurnNotification, TONSTAKERS_OPS.nftBurn, TONSTAKERS_OPS.distributedAsset];
  for (let cur = block.prev; cur; cur = cur.prev) {
    if (cur.type === 'call_contract' && cur.opcode === TONSTAKERS_OPS.startDistribution) return cur.node.source;
    if (cur.type === 'tonstakers_withdraw') return (cur.data?.details.pool as string | null) ?? null;
    if (!(cur.type === 'call_contract' && cur.opcode !== null && chainOps.includes(cur.opcode))) return null;
  }
  return null;
}

export const tonstakersDelayedWithdrawalMatcher: ActionMatcher = {
  name: 'tonstakers_delayed_withdrawal',
  ...op(TONSTAKERS_OPS.distributedAsset),
  parent: op(TONSTAKERS_OPS.nftBurnNotification, { parent: op(TONSTAKERS_OPS.nftBurn) }),
  build(block, matched) {
    const notification = block.prev;
    const body = notification ? readAs(notification, tonstakersNftBurnNotification) : null;
    if (!notification || !body) return null;
    const holder = raw(body.owner);
    const pool = poolAbove(notification);
    return composite('tonstakers_withdraw', [block, ...matched], {
      details: {
        provider: PROVIDER,
        stake_holder: holder,
        pool,
        amount: block.node.msg?.value ?? null,
        payout_nft: notification.node.source,
        tokens_burnt: body.amount.toString(),
        asset: null,
      },
      addresses: [holder, notification.node.source, pool],
      publicType: 'stake_withdrawal',
    }, block.failed);
  },
};

