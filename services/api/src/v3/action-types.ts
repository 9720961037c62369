import type { Kind } from './kinds.js';

/**
 * `supported_action_types` (toncenter-v3.md §5.2): concrete types or shortcuts, shortcuts expanded,
 * `v1` always added. An action is shown iff its type is in the set (or in `action_type` when given)
 * and none of its ancestors' types is (traces-and-actions.md §4).
 */
const V1 = [
  'call_contract', 'contract_deploy', 'ton_transfer', 'stake_deposit', 'stake_withdrawal', 'stake_withdrawal_request', 'dex_deposit_liquidity',
  'jetton_transfer', 'nft_transfer', 'nft_mint', 'jetton_burn', 'jetton_mint', 'jetton_swap', 'change_dns', 'delete_dns', 'renew_dns', 'subscribe',
  'dex_withdraw_liquidity', 'unsubscribe', 'election_deposit', 'election_recover', 'auction_bid', 'tick_tock',
];
const V2 = [
  ...V1, 'multisig_create_order', 'multisig_approve', 'multisig_execute', 'vesting_send_message', 'vesting_add_whitelist', 'evaa_supply', 'evaa_withdraw',
  'evaa_liquidate', 'jvault_stake', 'jvault_unstake', 'jvault_claim', 'jvault_unstake_request', 'nft_discovery', 'tonco_deploy_pool', 'coffee_create_vault',
  'coffee_create_pool_creator', 'coffee_create_pool', 'coffee_mev_protect_hold_funds', 'coffee_mev_protect_failed_swap', 'coffee_staking_claim_rewards',
  'coffee_staking_deposit', 'coffee_staking_withdraw', 'unknown',
];
const V3 = [
  ...V2, 'nft_put_on_sale', 'nft_put_on_auction', 'auction_outbid', 'nft_cancel_sale', 'nft_purchase', 'nft_cancel_auction', 'nft_finish_auction',
  'teleitem_start_auction', 'teleitem_cancel_auction', 'nft_update_sale', 'dns_purchase', 'dns_release', 'layerzero_send', 'layerzero_send_tokens',
  'layerzero_receive', 'layerzero_commit_packet', 'layerzero_dvn_verify',
];
const COCOON = [
  'cocoon_worker_payout', 'cocoon_proxy_payout', 'cocoon_proxy_charge', 'cocoon_client_top_up', 'cocoon_register_proxy', 'cocoon_unregister_proxy',
  'cocoon_client_register', 'cocoon_client_change_secret_hash', 'cocoon_client_request_refund', 'cocoon_grant_refund', 'cocoon_client_increase_stake',
  'cocoon_client_withdraw',
];
const V4 = [...V3, ...COCOON];

const SHORTCUTS: Record<string, readonly string[]> = { v1: V1, v2: V2, v3: V3, v4: V4, latest: V4, cocoon: COCOON };

/** The supported set for a request: shortcuts expanded, v1 added. Unknown names stand for themselves. */
export function supportedSet(requested: readonly string[] | undefined, actionsVersion?: string): string[] {
  const set = new Set<string>(V1);
  // X-Actions-Version replaces the parameter (toncenter-v3.md §1.3).
  for (const name of actionsVersion !== undefined ? [actionsVersion] : (requested ?? ['latest'])) for (const t of SHORTCUTS[name] ?? [name]) set.add(t);
  return [...set];
}

/** An action type or shortcut: toncenter's allowed characters. */
export const actionType: Kind<string> = {
  accepts: 'an action type: letters, digits, "_" and "." (at most 64)',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_.]{1,64}$' },
  parse: (t) => (/^[A-Za-z0-9_.]{1,64}$/.test(t) ? t : undefined),
};
