/** One action in the public /api/v3/actions form (include_accounts=true), plus its place in the hierarchy. */
export type Action = {
  trace_id: string | null;
  action_id: string;
  start_lt: string;
  end_lt: string;
  start_utime: number;
  end_utime: number;
  trace_end_lt: string;
  trace_end_utime: number;
  trace_mc_seqno_end: number;
  transactions: string[];
  success: boolean;
  type: string;
  details: Record<string, unknown>;
  trace_external_hash?: string;
  trace_external_hash_norm?: string;
  accounts: string[];
  finality: 'finalized';
  /** The action this one is a part of (null for a top-level action). */
  parent_action_id: string | null;
  /** Public types of every ancestor, nearest first: the API hides the action when one of them is requested. */
  ancestor_type: string[];
  /** toncenter's internal type (the one hashed into action_id), e.g. tonstakers_deposit. */
  internal_type: string;
  /** Set when the classifier could not fully confirm the action (toncenter's `broken` flag). */
  broken: boolean;
};

/**
 * Internal types whose children are never stored (toncenter's "v1" set): a client sees either these or
 * nothing of their parts. Every other composite also yields its children as actions.
 */
export const V1_INTERNAL_TYPES: ReadonlySet<string> = new Set([
  'call_contract', 'contract_deploy', 'jetton_burn', 'tick_tock', 'jetton_transfer', 'nft_transfer', 'nft_mint',
  'jetton_mint', 'ton_transfer', 'stake_deposit', 'stake_withdrawal', 'stake_withdrawal_request',
  'dex_deposit_liquidity', 'jetton_swap', 'change_dns', 'delete_dns', 'renew_dns', 'subscribe',
  'dex_withdraw_liquidity', 'unsubscribe', 'election_deposit', 'election_recover', 'auction_bid',
  'nominator_pool_deposit', 'nominator_pool_withdraw_request', 'dedust_deposit_liquidity',
  'dedust_deposit_liquidity_partial', 'tonstakers_deposit', 'tonstakers_withdraw_request', 'tonstakers_withdraw',
  'ethena_withdrawal_request', 'ethena_deposit', 'tonco_deposit_liquidity', 'tonco_withdraw_liquidity',
  'coffee_deposit_liquidity',
]);
