import { message } from '../layout.js';
import { bigUint, bits, ref, uint } from '../tlb/primitives.js';

/* The masterchain elector (ton-blockchain/ton `crypto/smartcont/elector-code.fc`). */

export const electorNewStake = message('elector_new_stake', 0x4e73744b, {
  query_id: bigUint(64),
  validator_pubkey: bits(256),
  stake_at: uint(32),
  max_factor: uint(32),
  adnl_addr: bits(256),
  signature: ref(bits(512)),
});

export const electorNewStakeConfirmation = message('elector_new_stake_confirmation', 0xf374484c, { query_id: bigUint(64) });

export const electorRecoverStakeRequest = message('elector_recover_stake_request', 0x47657424, { query_id: bigUint(64) });

export const electorRecoverStakeResponse = message('elector_recover_stake_response', 0xf96f7324, { query_id: bigUint(64) });

export const ELECTOR_MESSAGES = [electorNewStake, electorNewStakeConfirmation, electorRecoverStakeRequest, electorRecoverStakeResponse] as const;
