import { STONFI_EXIT, STONFI_V2_OPS, stonfiV2PayTo } from '@tonstream/contracts';
import type { ActionMatcher } from '../matcher.js';
import { routerSwapMatcher } from './router-swaps.js';
import { raw, readAs } from './util.js';

/*
 * STON.fi v2 swaps: router -> pool `swap`, pool -> router `pay_to` (exit code swap_ok on success).
 * Referral payouts (pay_vault -> vault deposit) stay actions of their own.
 */

export const stonfiV2SwapMatcher: ActionMatcher = routerSwapMatcher({
  dex: 'stonfi_v2',
  swapOp: STONFI_V2_OPS.swap,
  payToOp: STONFI_V2_OPS.payTo,
  readPayout(payTo) {
    const body = readAs(payTo, stonfiV2PayTo);
    if (!body) return null;
    const info = body.additional_info;
    const [amount, token] = info.amount0_out > 0n ? [info.amount0_out, info.token0_address] : [info.amount1_out, info.token1_address];
    return { amount, wallet: raw(token), ok: body.exit_code === STONFI_EXIT.swapOk };
  },
});
