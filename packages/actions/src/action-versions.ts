/**
 * `supported_action_types` shortcuts (docs/toncenter-v3.md §5.2, docs/streaming.md §3): what each actions
 * version adds. A client's set is its names with shortcuts expanded, `v1` always in; an action is
 * shown iff its type is in the set and none of its `ancestor_type` is (docs/traces-and-actions.md §4).
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

export const ACTION_TYPE_SHORTCUTS: Readonly<Record<string, readonly string[]>> = { v1: V1, v2: V2, v3: V3, v4: V4, latest: V4, cocoon: COCOON };

/** A client's supported set: shortcuts expanded, `v1` added; unknown names stand for themselves. */
export function supportedActionSet(requested: readonly string[]): Set<string> {
  const set = new Set<string>(V1);
  for (const name of requested) for (const t of ACTION_TYPE_SHORTCUTS[name] ?? [name]) set.add(t);
  return set;
}

/** Whether a client with `supported` is shown an action: its type is supported and no ancestor's is (the ancestor stands for it). */
export function isActionShown(a: { type: string; ancestor_type?: readonly string[] }, supported: ReadonlySet<string>): boolean {
  return supported.has(a.type) && !(a.ancestor_type ?? []).some((t) => supported.has(t));
}
