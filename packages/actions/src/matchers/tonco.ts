import { TONCO_EXIT, toncoPoolInit, toncoPoolSwap, toncoRouterCreatePool, toncoRouterPayTo } from '@tonstream/contracts';
import type { ActionMatcher } from '../matcher.js';
import { composite, op } from '../matcher.js';
import { routerSwapMatcher } from './router-swaps.js';
import { findOp, raw, readAs } from './util.js';

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

export const toncoSwapMatcher: ActionMatcher = routerSwapMatcher({
  dex: 'tonco',
  swapOp: toncoPoolSwap.opcode,
  payToOp: toncoRouterPayTo.opcode,
  readPayout(payTo) {
    const body = readAs(payTo, toncoRouterPayTo);
    const coins = body?.coins_info;
    if (!body || !coins) return null;
    const [amount, wallet] = coins.amount0 > 0n ? [coins.amount0, coins.jetton0_address] : [coins.amount1, coins.jetton1_address];
    return { amount, wallet: raw(wallet), ok: body.exit_code === TONCO_EXIT.swapOk };
  },
  // toncenter serves the amount the swap paid out as min_out_amount (on mainnet traces it is not
  // the pool swap's min_out_amount, which is that amount less the user's slippage).
  extraDetails: (_firstSwap, amountOut) => ({ min_out_amount: amountOut }),
});
