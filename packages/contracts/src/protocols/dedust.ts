import type { Slice } from '@ton/core';
import { message } from '../layout.js';
import type { Codec } from '../tlb/codec.js';
import { TlbMismatch } from '../tlb/codec.js';
import { msgAddress } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { anon, bigUint, bool, maybe, ref, refCell } from '../tlb/primitives.js';

/*
 * DeDust (vaults, pools, liquidity deposit contracts), after DeDust's TL-B as quoted in
 * toncenter/ton-indexer indexer/events/blocks/messages/{liquidity,swaps}.py. Not in MESSAGE_LAYOUTS.
 */

/** `native$0000 | jetton$0001 workchain_id:int8 address:uint256`: a jetton master in raw form, or null for TON. */
export const dedustAsset: Codec<string | null> = {
  read(s: Slice) {
    const kind = s.loadUint(4);
    if (kind === 0) return null;
    if (kind !== 1) throw new TlbMismatch(`unknown DeDust asset kind ${kind}`);
    const wc = s.loadInt(8);
    return `${wc}:${s.loadBuffer(32).toString('hex').toUpperCase()}`;
  },
  print() {
    throw new TlbMismatch('DeDust assets are not printed');
  },
};

export const DEDUST_OPS = {
  askLiquidityFactory: 0xf04ec526,
  deployDepositContract: 0x9b3aa3fa,
  topUpDepositContract: 0x54240fe5,
  destroyDepositContract: 0xaae79256,
  returnExcessFromVault: 0x6b0b787f,
  depositRejected: 0xe1a36cd4,
  payout: 0x474f86cf,
  payoutFromPool: 0xad4eb6f5,
  swapNotification: 0x9c610de3,
  swapExternal: 0x61ee542d,
  swapPeer: 0x72aca8aa,
  swap: 0xea06185d,
} as const;

const poolParams = { pool_type: bool, asset0: dedustAsset, asset1: dedustAsset };

/** User -> TON vault: deposit TON for liquidity. */
export const dedustDepositTon = message('dedust_deposit_liquidity_ton', 0xd55e4686, {
  query_id: bigUint(64),
  amount: coins,
  ...poolParams,
  params: ref(anon({ min_lp_amount: coins, asset0_target_balance: coins, asset1_target_balance: coins })),
});

/** The deposit request in a jetton transfer's forward payload (jetton vaults). */
export const dedustDepositJettonPayload = message('dedust_deposit_liquidity_jetton', 0x40e108d6, {
  ...poolParams,
  min_lp_amount: coins,
  asset0_target_balance: coins,
  asset1_target_balance: coins,
});

/** Deposit contract -> pool: both assets are in, mint the LP tokens. */
export const dedustDepositToPool = message('dedust_deposit_liquidity_to_pool', 0xb56b9598, {
  query_id: bigUint(64),
  proof: refCell,
  owner_addr: msgAddress,
  min_lp_amount: coins,
  balances: ref(anon({ asset0: dedustAsset, asset0_amount: coins, asset1: dedustAsset, asset1_amount: coins })),
  fulfill_payload: maybe(refCell),
  reject_payload: maybe(refCell),
});

/** Pool -> vault: pay `amount` out (swap result, withdrawal). */
export const dedustPayoutFromPool = message('dedust_payout_from_pool', DEDUST_OPS.payoutFromPool, { query_id: bigUint(64), proof: refCell, amount: coins });

/** Pool -> user (external-out log): one swap step. */
export const dedustSwapNotification = message('dedust_swap_notification', DEDUST_OPS.swapNotification, {
  asset_in: dedustAsset,
  asset_out: dedustAsset,
  amount_in: coins,
  amount_out: coins,
  extra: ref(anon({ sender_address: msgAddress, ref_address: msgAddress, reserve0: coins, reserve1: coins })),
});
