import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { anon, bigUint, bool, int, maybe, ref, refCell, uint } from '../tlb/primitives.js';
import { coins } from '../tlb/currency.js';

/*
 * TONCO (concentrated-liquidity DEX) router and pool messages, as TONCO's TL-B writes them (quoted in
 * toncenter/ton-indexer indexer/events/blocks/messages/swaps.py). Not in MESSAGE_LAYOUTS.
 */

export const toncoRouterCreatePool = message('tonco_router_create_pool', 0x2e3034ef, {
  query_id: bigUint(64),
  jetton_wallet0: msgAddress,
  jetton_wallet1: msgAddress,
  tick_spacing: int(24),
  initial_price_x96: bigUint(160),
  protocol_fee: uint(16),
  lp_fee_base: uint(16),
  lp_fee_current: uint(16),
  nftv3_content: refCell,
  nftv3item_content: refCell,
  minters: ref(anon({ jetton0_minter: msgAddress, jetton1_minter: msgAddress })),
});

/** Router -> pool: initialize (deploys the pool); only the fields up to `pool_active` are read. */
export const toncoPoolInit = message('tonco_pool_init', 0x441c39ed, {
  query_id: bigUint(64),
  from_admin: bool,
  has_admin: bool,
  admin_addr: msgAddress,
  has_controller: bool,
  controller_addr: msgAddress,
  set_spacing: bool,
  tick_spacing: int(24),
  set_price: bool,
  initial_price_x96: bigUint(160),
  set_active: bool,
  pool_active: bool,
});

/** TONCO's wrapped TON (pTON) master. */
export const TONCO_PTON_MASTER = '0:949C4C66760C002800E2FA3D8A3CA4E1C90A9373B53AE7472033483BF14CD95E';

/** Router -> pool: swap; `min_out_amount` is the user's limit. */
export const toncoPoolSwap = message('tonco_pool_swap', 0xa7fb58f8, {
  query_id: bigUint(64),
  owner_address: msgAddress,
  source_wallet: msgAddress,
  params: ref(anon({ amount: coins, sqrt_price_limit_x96: bigUint(160), min_out_amount: coins })),
});

/** Pool -> router: pay out; exit code 200 = swap done, 201 = burn done. */
export const toncoRouterPayTo = message('tonco_router_pay_to', 0xa1daa96d, {
  query_id: bigUint(64),
  receiver0: msgAddress,
  receiver1: msgAddress,
  exit_code: uint(32),
  seqno: bigUint(64),
  coins_info: maybe(ref(anon({ amount0: coins, jetton0_address: msgAddress, amount1: coins, jetton1_address: msgAddress }))),
});

export const TONCO_EXIT = { swapOk: 200, burnOk: 201 } as const;

/** Pool -> account contract: liquidity added (amounts so far, position range). */
export const toncoAccountAddLiquidity = message('tonco_account_add_liquidity', 0x3ebe5431, {
  query_id: bigUint(64),
  new_amount0: coins,
  new_amount1: coins,
  new_enough0: coins,
  new_enough1: coins,
  liquidity: bigUint(128),
  tick_lower: int(24),
  tick_upper: int(24),
});

/** The liquidity request a user puts in the forward payload of a transfer to the router. */
export const toncoFundAccountPayload = message('tonco_fund_account_payload', 0x4468de77, { other_jetton_wallet: msgAddress, amount0: coins, amount1: coins });

export const TONCO_OPS = { fundAccount: 0x4468de77, mintAndRefund: 0x81702ef8 } as const;

/** Pool -> position NFT: initialize a minted position. */
export const toncoPositionInit = message('tonco_position_init', 0xd5ecca2a, {
  query_id: bigUint(64),
  user_address: msgAddress,
  liquidity: bigUint(128),
  tick_lower: int(24),
  tick_upper: int(24),
  old_fee: ref(anon({ fee_growth_inside0_last_x128: bigUint(256), fee_growth_inside1_last_x128: bigUint(256), nft_index: bigUint(64) })),
});

/** Owner -> pool: start burning a position. */
export const toncoPoolStartBurn = message('tonco_pool_start_burn', 0x530b5f2c, {
  query_id: bigUint(64),
  burned_index: bigUint(64),
  liquidity_to_burn: bigUint(128),
  tick_lower: int(24),
  tick_upper: int(24),
});

/** Pool -> position NFT: burn (names the NFT's owner). */
export const toncoPositionBurn = message('tonco_position_burn', 0x46ca335a, { query_id: bigUint(64), nft_owner: msgAddress, liquidity_to_burn: bigUint(128), tick_lower: int(24), tick_upper: int(24) });

/** Position NFT -> pool: burned; pays the position out through the router. */
export const toncoPoolBurn = message('tonco_pool_burn', 0xd73ac09d, { query_id: bigUint(64), recipient: msgAddress, burned_index: bigUint(64) });
