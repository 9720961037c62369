import { rethrowBugs } from '@tonstream/errors';
import {
  jettonNotify, ptonTonTransfer, TONCO_EXIT, TONCO_OPS, toncoAccountAddLiquidity, toncoFundAccountPayload, toncoPoolBurn,
  toncoPoolStartBurn, toncoPositionBurn, toncoPositionInit, toncoRouterPayTo,
} from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext, Matcher } from '../matcher.js';
import { anyOf, composite, ofType, op } from '../matcher.js';
import type { JettonTransferDetails } from './jettons.js';
import { PTON_MASTERS } from './jettons.js';
import { findBlocks, findOp, jettonWallet, raw, readAs } from './util.js';

/*
 * TONCO liquidity: a deposit is one transfer to the router per asset (router -> pool fund_account
 * -> account contract add_liquidity); the second one also has the account call the pool to mint the
 * position NFT and refund the rest. A withdrawal burns the position NFT: start_burn -> NFT burn ->
 * pool burn -> router pay_to with both assets.
 */

/** TON for pTON wallets, else the wallet's jetton (null when unknown). */
function assetOf(ctx: MatchContext, wallet: string | null): string | null {
  const jetton = jettonWallet(ctx, wallet)?.jetton ?? null;
  return jetton && PTON_MASTERS.has(jetton) ? null : jetton;
}

/** A router payout: a jetton transfer, possibly unwrapped from pTON into TON. */
const payout = (): Matcher => ofType('jetton_transfer', { optional: true, child: op(ptonTonTransfer.opcode, { optional: true }) });

function payoutAmount(transfer: Block): { asset: string | null; amount: string | null; ptonBlock: Block | undefined } {
  const t = transfer.data!.details as JettonTransferDetails;
  const pton = transfer.next.find((b) => b.type === 'call_contract' && b.opcode === ptonTonTransfer.opcode);
  if (pton) return { asset: null, amount: readAs(pton, ptonTonTransfer)?.ton_amount.toString() ?? null, ptonBlock: pton };
  return { asset: t.asset, amount: t.amount, ptonBlock: undefined };
}

export const toncoDepositLiquidityMatcher: ActionMatcher = {
  name: 'tonco_deposit_liquidity',
  ...op(toncoAccountAddLiquidity.opcode),
  parent: op(TONCO_OPS.fundAccount, {
    parent: anyOf([op(jettonNotify.opcode, { parent: op(ptonTonTransfer.opcode) }), ofType('jetton_transfer')]),
  }),
  child: op(TONCO_OPS.mintAndRefund, {
    optional: true,
    children: [op(toncoRouterPayTo.opcode, { optional: true, children: [payout(), payout()] }), ofType('nft_mint')],
  }),
  build(block, matched, ctx) {
    const add = readAs(block, toncoAccountAddLiquidity);
    if (!add) return null;
    const input = matched.find((b) => b.type === 'jetton_transfer' && b.next.some((n) => n.opcode === TONCO_OPS.fundAccount))
      ?? matched.find((b) => b.type === 'call_contract' && b.opcode === jettonNotify.opcode && b.next.some((n) => n.opcode === TONCO_OPS.fundAccount));
    if (!input) return null;
    const notify = input.type === 'jetton_transfer' ? findBlocks([input], (b) => b.type === 'call_contract' && b.opcode === jettonNotify.opcode)[0] : input;
    const body = notify ? readAs(notify, jettonNotify) : null;
    if (!notify || !body) return null;
    let payload;
    try {
      payload = toncoFundAccountPayload.read(body.forward_payload.beginParse());
    } catch (err) {
      rethrowBugs(err);
      return null;
    }
    const senderWallet = input.type === 'jetton_transfer' ? (input.data!.details as JettonTransferDetails).sender_jetton_wallet : null;
    const firstAsset = assetOf(ctx, notify.node.source);
    const secondAsset = assetOf(ctx, raw(payload.other_jetton_wallet));
    const firstDeposited = add.new_amount0 > 0n;
    const sent = body.amount.toString();
    const [amount1, asset1, amount2, asset2, wallet1, wallet2] = firstDeposited
      ? [sent, firstAsset, null, secondAsset, senderWallet, null]
      : [null, secondAsset, sent, firstAsset, null, senderWallet];
    // toncenter serves the deposited amounts first-non-empty first; the wallets keep their slots.
    const pairs = [[amount1, asset1], [amount2, asset2]].filter(([amount]) => amount !== null);
    const mint = matched.find((b) => b.type === 'nft_mint');
    const init = mint ? findBlocks([mint], (b) => b.type === 'call_contract' && b.opcode === toncoPositionInit.opcode)[0] : undefined;
    const position = init ? readAs(init, toncoPositionInit) : null;
    const excesses: { asset: string | null; amount: string | null }[] = [];
    const refund = findOp(matched, toncoRouterPayTo.opcode);
    const extra: Block[] = [];
    for (const t of refund ? refund.next.filter((b) => b.type === 'jetton_transfer' && matched.includes(b)) : []) {
      const p = payoutAmount(t);
      excesses.push({ asset: p.asset, amount: p.amount });
      if (p.ptonBlock && !matched.includes(p.ptonBlock)) extra.push(p.ptonBlock);
    }
    const pool = block.node.source;
    const details = {
      dex: 'tonco',
      source: raw(body.sender),
      pool,
      destination_liquidity: pool,
      amount_1: pairs[0]?.[0] ?? null,
      asset_1: pairs[0]?.[1] ?? null,
      amount_2: pairs[1]?.[0] ?? null,
      asset_2: pairs[1]?.[1] ?? null,
      user_jetton_wallet_1: wallet1,
      user_jetton_wallet_2: wallet2,
      lp_tokens_minted: position ? position.liquidity.toString() : null,
      target_asset_1: asset1,
      target_asset_2: asset2,
      target_amount_1: add.new_enough0.toString(),
      target_amount_2: add.new_enough1.toString(),
      vault_excesses: excesses,
      tick_lower: String(add.tick_lower),
      tick_upper: String(add.tick_upper),
      nft_index: position ? position.old_fee.nft_index.toString() : null,
      nft_address: init ? init.node.destination : null,
    };
    const ptonIn = input.type === 'call_contract' ? input.prev : null;
    const include = [block, ...matched, ...extra, ...(ptonIn && !matched.includes(ptonIn) ? [ptonIn] : [])];
    return composite('tonco_deposit_liquidity', include, {
      details,
      addresses: [details.source, wallet1 ?? wallet2, pool, block.node.destination],
      publicType: 'dex_deposit_liquidity',
    }, block.failed);
  },
};

export const toncoWithdrawLiquidityMatcher: ActionMatcher = {
  name: 'tonco_withdraw_liquidity',
  ...op(toncoPoolStartBurn.opcode),
  child: op(toncoPositionBurn.opcode, { child: op(toncoPoolBurn.opcode, { child: op(toncoRouterPayTo.opcode, { children: [payout(), payout()] }) }) }),
  build(block, matched, ctx) {
    const start = readAs(block, toncoPoolStartBurn);
    const burnCall = findOp(matched, toncoPositionBurn.opcode);
    const poolBurnCall = findOp(matched, toncoPoolBurn.opcode);
    const payTo = findOp(matched, toncoRouterPayTo.opcode);
    const burn = burnCall ? readAs(burnCall, toncoPositionBurn) : null;
    const payBody = payTo ? readAs(payTo, toncoRouterPayTo) : null;
    if (!start || !burnCall || !burn || !poolBurnCall || !payTo || !payBody) return null;
    const poolBurn = readAs(poolBurnCall, toncoPoolBurn);
    const index = poolBurn && poolBurn.burned_index > 0n ? poolBurn.burned_index : start.burned_index;
    const coins = payBody.coins_info;
    // The router's pTON wallet stands for TON: no jetton wallet (as pTON payouts have none).
    const routerWallet = (w: unknown) => {
      const wallet = raw(w);
      return PTON_MASTERS.has(jettonWallet(ctx, wallet)?.jetton ?? '') ? null : wallet;
    };
    const routerAssets = [
      { amount: coins?.amount0 ?? 0n, wallet: routerWallet(coins?.jetton0_address), receiver: raw(payBody.receiver0) },
      { amount: coins?.amount1 ?? 0n, wallet: routerWallet(coins?.jetton1_address), receiver: raw(payBody.receiver1) },
    ];
    const transfers = payTo.next.filter((b) => b.type === 'jetton_transfer' && matched.includes(b));
    const extra: Block[] = [];
    let outs = [0, 1].map((i) => {
      const t = transfers[i];
      if (t) {
        const d = t.data!.details as JettonTransferDetails;
        const p = payoutAmount(t);
        if (p.ptonBlock && !matched.includes(p.ptonBlock)) extra.push(p.ptonBlock);
        return { asset: p.asset, amount: p.amount, dexJettonWallet: d.sender_jetton_wallet, wallet: d.receiver_jetton_wallet };
      }
      const r = routerAssets[i];
      return { asset: assetOf(ctx, r.wallet), amount: r.amount.toString(), dexJettonWallet: r.wallet, wallet: r.receiver };
    });
    // Order the payouts as the pool's assets (the router's pay_to lists asset 0 first).
    if (outs[0].dexJettonWallet !== routerAssets[0].wallet) outs = [outs[1], outs[0]];
    const pool = block.node.destination;
    const details = {
      dex: 'tonco',
      source: raw(burn.nft_owner),
      pool,
      destination_liquidity: pool,
      amount_1: outs[0].amount,
      asset_1: outs[0].asset,
      user_jetton_wallet_1: outs[0].wallet,
      amount_2: outs[1].amount,
      asset_2: outs[1].asset,
      user_jetton_wallet_2: outs[1].wallet,
      lp_tokens_burnt: start.liquidity_to_burn.toString(),
      is_refund: null,
      burnt_nft_index: index.toString(),
      burnt_nft_address: burnCall.node.destination,
      tick_lower: String(start.tick_lower),
      tick_upper: String(start.tick_upper),
    };
    return composite('tonco_withdraw_liquidity', [block, ...matched, ...extra], {
      details,
      addresses: [details.source, pool],
      publicType: 'dex_withdraw_liquidity',
    }, payBody.exit_code !== 0 && payBody.exit_code !== TONCO_EXIT.burnOk);
  },
};
