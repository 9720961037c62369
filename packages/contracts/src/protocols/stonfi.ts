import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { anon, bigUint, bool, maybe, ref, refCell, uint } from '../tlb/primitives.js';

/*
 * STON.fi DEX v1 (router <-> pool) and its proxy TON (pTON), as STON.fi's contracts lay them out
 * (quoted in toncenter/ton-indexer indexer/events/blocks/messages/swaps.py). Not in MESSAGE_LAYOUTS.
 */

/** pTON v1 master: TON wrapped as a jetton on STON.fi v1 routers. */
export const STONFI_PTON_V1_MASTER = '0:8CDC1D7640AD5EE326527FC1AD0514F468B30DC84B0173F0E155F451B4E11F7C';

/** Payment request exit codes: swap ok, referral payout, no liquidity, reserve error. */
export const STONFI_EXIT = { swapOk: 0xc64370e5, swapOkRef: 0x45078540, noLiquidity: 0x5ffe1295, reserveError: 0x38976e9b } as const;

/** Router -> pool: swap `amount` of the asset arriving on `token_wallet`. */
export const stonfiSwap = message('stonfi_swap', 0x25938561, {
  query_id: bigUint(64),
  from_user_address: msgAddress,
  token_wallet: msgAddress,
  amount: coins,
  min_out: coins,
  has_ref: bool,
  ref: ref(anon({ from_real_user: msgAddress })),
});

/** Pool -> router: pay out (a swap result, a referral fee or a refund). */
export const stonfiPaymentRequest = message('stonfi_payment_request', 0xf93bb43f, {
  query_id: bigUint(64),
  owner: msgAddress,
  exit_code: uint(32),
  amounts: ref(anon({ amount0_out: coins, token0_out: msgAddress, amount1_out: coins, token1_out: msgAddress })),
});

/** pTON v2 master (STON.fi v2 routers). */
export const STONFI_PTON_V2_MASTER = '0:671963027F7F85659AB55B821671688601CDCF1EE674FC7FBBB1A776A18D34A3';

/** STON.fi v2: router -> pool swap, pool -> router pay_to / pay_vault, router -> vault referral deposit. */
export const STONFI_V2_OPS = { swap: 0x6664de2a, payTo: 0x657b54f5, payVault: 0x63381632, depositRefFee: 0x0490f09b } as const;

/** Pool -> router: pay the swap result (or refund) out. */
export const stonfiV2PayTo = message('stonfi_v2_pay_to', STONFI_V2_OPS.payTo, {
  query_id: bigUint(64),
  to_address: msgAddress,
  excesses_address: msgAddress,
  original_caller: msgAddress,
  exit_code: uint(32),
  custom_payload: maybe(refCell),
  additional_info: ref(anon({ fwd_ton_amount: coins, amount0_out: coins, token0_address: msgAddress, amount1_out: coins, token1_address: msgAddress })),
});

/** pTON v2 "ton_transfer": TON sent as pTON, to or from a pTON wallet. */
export const ptonTonTransfer = message('pton_ton_transfer', 0x01f3835d, { query_id: bigUint(64), ton_amount: coins, refund_address: msgAddress });
