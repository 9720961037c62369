import type { Slice } from '@ton/core';
import { message } from '../layout.js';
import type { Codec } from '../tlb/codec.js';
import { TlbMismatch } from '../tlb/codec.js';
import { coins } from '../tlb/currency.js';
import { anon, bigUint, maybe, ref, refCell, uint } from '../tlb/primitives.js';
import { msgAddress } from '../tlb/address.js';

/*
 * swap.coffee DEX (vaults, pools), after its TL-B as quoted in toncenter/ton-indexer
 * indexer/events/blocks/messages/coffee.py. Not in MESSAGE_LAYOUTS.
 */

/** `native$00 | jetton$01 chain:uint8 hash:uint256 | extra$10 id:uint32`: a jetton master, or null for TON. */
export const coffeeAsset: Codec<string | null> = {
  read(s: Slice) {
    const tag = s.loadUint(2);
    if (tag === 0) return null;
    if (tag === 1) {
      const chain = s.loadUint(8);
      return `${chain === 255 ? -1 : chain}:${s.loadBuffer(32).toString('hex').toUpperCase()}`;
    }
    throw new TlbMismatch(`swap.coffee asset tag ${tag} is not a TON or jetton asset`);
  },
  print() {
    throw new TlbMismatch('swap.coffee assets are not printed');
  },
};

export const COFFEE_OPS = {
  depositLiquidityNative: 0xc0ffee04,
  createPoolNative: 0xc0ffee02,
  depositLiquidityInternal: 0xc0ffee29,
  notificationCallback: 0xb216d31f,
  createVault: 0xc0ffee06,
  deploy: 0xc0ffee22,
  liquidityWithdrawalEvent: 0xc0ffee35,
  mevProtectHoldFunds: 0x6bc79e7e,
  stakingDeposit: 0xf9471134,
  stakingMintItem: 0xbe5a7595,
  stakingWithdraw: 0xcb03bfaf,
  stakingClaimRewards: 0xb30c7310,
  swapNative: 0xc0ffee00,
  swapInternal: 0xc0ffee20,
  payoutInternal: 0xc0ffee21,
  swapSuccessfulEvent: 0xc0ffee30,
  swapFailedEvent: 0xc0ffee31,
  payout: 0xc0ffee32,
  notification: 0xc0ffee36,
} as const;

/** User -> native vault: swap `amount` TON. */
export const coffeeSwapNative = message('coffee_swap_native', COFFEE_OPS.swapNative, { query_id: bigUint(64), amount: coins });

/** Pool log (external-out): one swap step done. The reserves follow inline (mainnet logs), not in a ref. */
export const coffeeSwapSuccessfulEvent = message('coffee_swap_successful_event', COFFEE_OPS.swapSuccessfulEvent, {
  query_id: bigUint(64),
  input: coffeeAsset,
  input_amount: coins,
  output_amount: coins,
  input_reserve: coins,
  output_reserve: coins,
});

/** User -> factory: create a vault for an asset. */
export const coffeeCreateVault = message('coffee_create_vault', 0xc0ffee06, { query_id: bigUint(64), asset: coffeeAsset });

/** Pool log (external-out): liquidity withdrawn (both amounts, LP burnt). */
export const coffeeLiquidityWithdrawalEvent = message('coffee_liquidity_withdrawal_event', 0xc0ffee35, {
  query_id: bigUint(64),
  amount1: coins,
  amount2: coins,
  lp_amount: coins,
});

/**
 * Staking pool log (external-out) of a deposit (0xf9471134) or a withdrawal (0xcb03bfaf): the position
 * item's index and owner, the position (points first) and the staked asset (pool wallet, amount).
 */
export const coffeeStakingLog = anon({
  op: uint(32),
  query_id: bigUint(64),
  item_index: bigUint(64),
  owner: msgAddress,
  position: ref(anon({ user_points: coins })),
});

/** `pool_params first:Asset second:Asset amm:AMM amm_settings:(Maybe ^Cell)`. */
const poolParams = { first: coffeeAsset, second: coffeeAsset, amm: uint(3), amm_settings: maybe(refCell) };

/** Pool creation parameters: where the LP tokens go (`recipient`) first. */
const poolCreationParams = anon({ recipient: msgAddress });

/** Vault -> factory: a creation leg arrived (amount, pool params, the user). */
export const coffeeCreatePoolCreatorRequest = message('coffee_create_pool_creator_request', 0xc0ffee23, {
  query_id: bigUint(64),
  amount: coins,
  ...poolParams,
  creation_params: ref(poolCreationParams),
  sender: msgAddress,
});

/** Pool creator -> factory: both legs are in, create the pool. */
export const coffeeCreatePoolRequest = message('coffee_create_pool_request', 0xc0ffee25, {
  query_id: bigUint(64),
  amount1: coins,
  amount2: coins,
  tx_initiator: msgAddress,
});

/** Vault -> factory: a liquidity leg arrived; the depository collects both. */
export const coffeeCreateLiquidityDepositoryRequest = message('coffee_create_liquidity_depository_request', 0xc0ffee27, {
  query_id: bigUint(64),
  amount: coins,
  params: refCell,
  pool_params: ref(anon(poolParams)),
  sender: msgAddress,
});

/** Pool log (external-out): liquidity deposited, LP minted. */
export const coffeeDepositLiquiditySuccessfulEvent = message('coffee_deposit_liquidity_successful_event', 0xc0ffee33, {
  query_id: bigUint(64),
  amount1: coins,
  amount2: coins,
  lp_amount: coins,
});
