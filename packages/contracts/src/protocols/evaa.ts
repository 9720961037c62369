import type { Slice } from '@ton/core';
import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { bigInt, bigUint } from '../tlb/primitives.js';

/*
 * EVAA lending (master and user contracts), per EVAA's schema.tlb as quoted in
 * toncenter/ton-indexer indexer/events/blocks/messages/evaa.py. Amounts are uint64 (`Amount`),
 * asset ids uint256 (sha256 of the asset; TON's is EVAA_TON_ASSET_ID). Not in MESSAGE_LAYOUTS.
 */

export const EVAA_TON_ASSET_ID = 0x1a4219fe5e60d63af2a3cc7dce6fec69b45c6b5718497a6148e7c232ac87bd8an;

export const EVAA_OPS = {
  supplyMaster: 0x1,
  supplyUser: 0x11,
  supplySuccess: 0x11a,
  supplyFail: 0x11f,
  withdrawMaster: 0x2,
  withdrawUser: 0x21,
  withdrawCollateralized: 0x211,
  withdrawSuccess: 0x211a,
  withdrawFail: 0x211f,
  withdrawNoFundsExcess: 0x211fe8,
} as const;

/** User-contract failure excesses and the reason each stands for. */
export const EVAA_WITHDRAW_FAIL_EXCESS: Readonly<Record<number, string>> = {
  0x21e6: 'withdraw_locked_excess',
  0x21e7: 'withdraw_not_collateralized_excess',
  0x21e8: 'withdraw_missing_prices_excess',
  0x21ec: 'withdraw_execution_crashed',
};

/** Messages to a user contract start with a header: user_version:Coins upgrade_info:(Maybe ^Cell) upgrade_exec:uint2. */
export function skipEvaaUserHeader(s: Slice): void {
  s.loadCoins();
  s.loadMaybeRef();
  s.loadUint(2);
}

export const evaaSupplyMaster = message('evaa_supply_master', EVAA_OPS.supplyMaster, {
  query_id: bigUint(64),
  include_user_code: bigInt(2),
  supply_amount: bigUint(64),
  recipient_address: msgAddress,
});
/** The supply request in a jetton transfer's forward payload (no query id, no amount). */
export const evaaSupplyJettonPayload = message('evaa_supply_jetton_payload', EVAA_OPS.supplyMaster, { include_user_code: bigInt(2), recipient_address: msgAddress });
export const evaaSupplySuccess = message('evaa_supply_success', EVAA_OPS.supplySuccess, {
  query_id: bigUint(64),
  owner_address: msgAddress,
  asset_id: bigUint(256),
  amount_supplied: bigUint(64),
});
export const evaaWithdrawMaster = message('evaa_withdraw_master', EVAA_OPS.withdrawMaster, {
  query_id: bigUint(64),
  asset_id: bigUint(256),
  amount: bigUint(64),
  recipient_address: msgAddress,
});
export const evaaWithdrawCollateralized = message('evaa_withdraw_collateralized', EVAA_OPS.withdrawCollateralized, {
  query_id: bigUint(64),
  owner_address: msgAddress,
  asset_id: bigUint(256),
  withdraw_amount_current: bigUint(64),
});
