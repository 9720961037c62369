import { message } from '../layout.js';
import { msgAddress, msgAddressInt } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { anon, anyCell, bigUint, bits, refCell, uint } from '../tlb/primitives.js';

/*
 * Cocoon (Telegram's confidential compute network): client, proxy and worker contracts, as the
 * structs of its Tolk sources declare them (quoted in toncenter/ton-indexer
 * indexer/events/blocks/messages/cocoon.py). Not in MESSAGE_LAYOUTS: toncenter's decoder does not name them.
 */

const queryId = bigUint(64);

export const cocoonReturnExcessesBack = message('cocoon_return_excesses_back', 0x2565934c, { query_id: queryId });
export const cocoonPayout = message('cocoon_payout', 0xc59a7cd3, { query_id: queryId });
export const cocoonWorkerProxyRequest = message('cocoon_worker_proxy_request', 0x4d725d2c, {
  query_id: queryId,
  owner_address: msgAddressInt,
  state: uint(2),
  tokens: bigUint(64),
});
export const cocoonClientProxyRequest = message('cocoon_client_proxy_request', 0x65448ff4, { query_id: queryId, owner_address: msgAddressInt });
export const cocoonPayoutPayload = message('cocoon_payout_payload', 0xa040ad28, { query_id: queryId, new_tokens: bigUint(64), expected_my_address: msgAddress });
export const cocoonLastPayoutPayload = message('cocoon_last_payout_payload', 0xf5f26a36, { query_id: queryId, new_tokens: bigUint(64), expected_my_address: msgAddress });
export const cocoonExtProxyPayoutRequest = message('cocoon_ext_proxy_payout_request', 0x7610e6eb, { query_id: queryId, send_excesses_to: msgAddress });
export const cocoonRegisterProxy = message('cocoon_register_proxy', 0x927c7cb5, { query_id: queryId, proxy_info: anyCell });
export const cocoonUnregisterProxy = message('cocoon_unregister_proxy', 0x6d49eaf2, { query_id: queryId, seqno: uint(32) });
export const cocoonExtClientTopUp = message('cocoon_ext_client_top_up', 0xf172e6c2, { query_id: queryId, top_up_amount: coins, send_excesses_to: msgAddress });
export const cocoonOwnerClientRegister = message('cocoon_owner_client_register', 0xc45f9f3b, { query_id: queryId, nonce: bigUint(64), send_excesses_to: msgAddress });
export const cocoonOwnerClientChangeSecretHash = message('cocoon_owner_client_change_secret_hash', 0xa9357034, {
  query_id: queryId,
  new_secret_hash: bits(256),
  send_excesses_to: msgAddress,
});
export const cocoonOwnerClientIncreaseStake = message('cocoon_owner_client_increase_stake', 0x6a1f6a60, { query_id: queryId, new_stake: coins, send_excesses_to: msgAddress });
export const cocoonOwnerClientWithdraw = message('cocoon_owner_client_withdraw', 0xda068e78, { query_id: queryId });
export const cocoonOwnerClientRequestRefund = message('cocoon_owner_client_request_refund', 0xfafa6cc1, { query_id: queryId });
/** The owner wallet's "send this message" wrapper in front of a client request. */
export const cocoonOwnerWalletSendMessage = message('cocoon_owner_wallet_send_message', 0x9c69f376, { query_id: queryId });

/** A message signed by the proxy: the signed data cell holds the payload (charge, grant refund). */
const signed = { query_id: queryId, send_excesses_to: msgAddress, signature: bits(512), signed_data: refCell };
export const cocoonExtProxyCharge = message('cocoon_ext_proxy_charge', 0xbb63ff93, signed);
export const cocoonExtClientGrantRefund = message('cocoon_ext_client_grant_refund', 0xefd711e1, signed);

/** ChargePayload / GrantRefundPayload inside a signed message (op, query id, tokens used, expected address). */
export const cocoonTokensPayload = anon({ op: uint(32), query_id: queryId, new_tokens_used: bigUint(64), expected_my_address: msgAddress });
