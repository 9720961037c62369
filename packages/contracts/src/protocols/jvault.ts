import { message } from '../layout.js';
import { coins } from '../tlb/currency.js';
import { anyCell, bigUint, uint } from '../tlb/primitives.js';

/*
 * JVault staking (pools, stake wallets, referrer wallets), opcodes and layouts as toncenter's
 * classifier reads them (toncenter/ton-indexer indexer/events/blocks/messages/jvault.py). Not in
 * MESSAGE_LAYOUTS.
 */

export const JVAULT_OPS = {
  receiveJettons: 0xd68a4ac1,
  requestUpdateRewards: 0xf5c5baa3,
  updateRewards: 0xae9307ce,
  requestUpdateReferrer: 0x55c35b40,
  updateReferrer: 0x076ee4e0,
  setData: 0x383411ea,
  stakeCancelled: 0x9eada1d9,
  sendClaimedRewards: 0x44bc1fe3,
} as const;

export const jvaultUnstakeJettons = message('jvault_unstake_jettons', 0x499a9262, { query_id: bigUint(64), jettons_to_unstake: coins });
export const jvaultUnstakeRequest = message('jvault_unstake_request', 0x0168d4b7, { query_id: bigUint(64), jettons_to_unstake: coins });
/** `jettons_to_claim` is a HashmapE 267 Bit keyed by jetton wallet address (the rest of the body). */
export const jvaultClaimRewards = message('jvault_claim_rewards', 0x78d9f109, { query_id: bigUint(64), jettons_to_claim: anyCell });
/** The stake transfer's forward payload: the lock period in seconds. */
export const jvaultStakePayload = { op: uint(32), period: uint(32) };
