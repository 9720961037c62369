import { rethrowBugs } from '@tonstream/errors';
import type { Cell } from '@ton/core';
import { ptonTonTransfer, TONCO_EXIT, toncoPoolInit, toncoPoolSwap, toncoRouterCreatePool, toncoRouterPayTo } from '@tonstream/contracts';
import type { Block } from '../block.js';
import type { ActionMatcher, MatchContext } from '../matcher.js';
import { composite, op } from '../matcher.js';
import { PTON_MASTERS } from './jettons.js';
import type { Leg } from './router-swaps.js';
import { routerSwapMatcher } from './router-swaps.js';
import { findOp, jettonWallet, raw, readAs } from './util.js';

/* TONCO: pool deployment through the router (create_pool -> pool init) and swaps (pool swap -> router pay_to). */

export const toncoDeployPoolMatcher: ActionMatcher = {
  name: 'tonco_deploy_pool',
  ...op(toncoRouterCreatePool.opcode),
  child: op(toncoPoolInit.opcode),
  build(block, matched) {
    const body = readAs(block, toncoRouterCreatePool);
    const init = findOp(matched, toncoPoolInit.opcode);
    if (!body || !init) return null;
    const initBody = readAs(init, toncoPoolInit);
    const details = {
      source: block.node.source,
      pool: init.node.destination,
      router: block.node.destination,
      router_jetton_wallet_1: raw(body.jetton_wallet0),
      router_jetton_wallet_2: raw(body.jetton_wallet1),
      jetton_minter_1: raw(body.minters.jetton0_minter),
      jetton_minter_2: raw(body.minters.jetton1_minter),
      tick_spacing: String(body.tick_spacing),
      initial_price_x96: body.initial_price_x96.toString(),
      protocol_fee: String(body.protocol_fee),
      lp_fee_base: String(body.lp_fee_base),
      lp_fee_current: String(body.lp_fee_current),
      pool_active: initBody ? initBody.pool_active : null,
    };
    return composite('tonco_deploy_pool', [block, ...matched], { details, addresses: [details.source, details.pool, details.router] }, block.failed || init.failed);
  },
};

/** The forward payload of a pTON `ton_transfer`: a maybe-ref, else (refs left) the rest of the body. */
function ptonForwardPayload(pton: Block): Cell | null {
  const s = pton.node.body().beginParse();
  s.skip(32 + 64);
  s.loadCoins();
  s.loadAddressAny();
  return s.loadMaybeRef() ?? (s.remainingRefs > 0 ? s.asCell() : null);
}

/**
 * Every hop's (router jetton wallet of the token wanted, minimum out) of a swap request as TONCO's SDK
 * writes it (op, wallet, price limit:uint160, minimum out, recipient, maybe the next hop's request),
 * read as toncenter reads it: the outer opcode unchecked; a next hop that does not read ends the list.
 */
function requestTargets(payload: Cell): { wallet: string; minOut: bigint }[] {
  const s = payload.beginParse();
  s.skip(32);
  const wallet = raw(s.loadAddressAny());
  s.skip(160);
  const minOut = s.loadCoins();
  s.loadAddressAny();
  const next = s.loadMaybeRef();
  const targets = wallet ? [{ wallet, minOut }] : [];
  if (next) {
    try {
      if (next.beginParse().preloadUint(32) === toncoPoolSwap.opcode) targets.push(...requestTargets(next));
    } catch (err) {
      rethrowBugs(err);
      // Ends the list.
    }
  }
  return targets;
}

/**
 * A failed swap paid for in pTON: the last hop's target of the request in the pTON payload. toncenter
 * reads no request from a jetton transfer's payload (it keeps that one as a base64 string, not a cell).
 */
function failedSwapTarget(incoming: Block[], out: Leg, ctx: MatchContext): { asset: string | null; minOut: string } | null {
  const pton = incoming.find((b) => b.type === 'call_contract' && b.opcode === ptonTonTransfer.opcode);
  if (!pton) return null;
  let last: { wallet: string; minOut: bigint } | undefined;
  try {
    const payload = ptonForwardPayload(pton);
    last = payload ? requestTargets(payload).at(-1) : undefined;
  } catch (err) {
    rethrowBugs(err);
    return null;
  }
  if (!last) return null;
  const minOut = last.minOut.toString();
  if (last.wallet === out.source_jetton_wallet || last.wallet === out.destination_jetton_wallet) return { asset: out.asset, minOut };
  const jetton = jettonWallet(ctx, last.wallet)?.jetton;
  if (!jetton) return null;
  return { asset: PTON_MASTERS.has(jetton) ? null : jetton, minOut };
}

export const toncoSwapMatcher: ActionMatcher = routerSwapMatcher({
  dex: 'tonco',
  swapOp: toncoPoolSwap.opcode,
  payToOp: toncoRouterPayTo.opcode,
  readPayout(payTo) {
    const body = readAs(payTo, toncoRouterPayTo);
    const coins = body?.coins_info;
    if (!body || !coins) return null;
    const [amount, wallet] = coins.amount0 > 0n ? [coins.amount0, coins.jetton0_address] : [coins.amount1, coins.jetton1_address];
    // toncenter counts exit codes 0 and 200 (swap done) as success.
    return { amount, wallet: raw(wallet), ok: body.exit_code === TONCO_EXIT.swapOk || body.exit_code === 0 };
  },
  // toncenter serves the amount the swap paid out as min_out_amount (on mainnet traces it is not
  // the pool swap's min_out_amount, which is that amount less the user's slippage).
  extraDetails: (_firstSwap, amountOut) => ({ min_out_amount: amountOut }),
  // A failed swap shows what the user asked for instead.
  failedTarget: failedSwapTarget,
});
