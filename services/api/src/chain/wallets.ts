import { type ContractFacts, describeAccount, type WalletFacts } from '@tonstream/contracts';
import { codeHash, type LiteAccountState, stateParts, tonlibState } from './account-state.js';

// The table lives in @tonstream/contracts (interface detection names wallets from it too).
export { WALLET_TYPES, walletType, type WalletType } from '@tonstream/contracts';

/** The contract facts of a state read from a liteserver (@tonstream/contracts `describeAccount`). */
export function liveFacts(s: LiteAccountState): ContractFacts {
  const state = tonlibState(s.account);
  const parts = stateParts(s.account);
  return describeAccount({ status: state === 'uninitialized' ? 'uninit' : state, code_hash: codeHash(s.account), code_boc: parts.code || null, data_boc: parts.data || null });
}

/** `ext.accounts.walletInformation` fields of a state (v2 getWalletInformation, v3 /walletInformation with use_v2). */
export function walletInformation(s: LiteAccountState) {
  const wallet = liveFacts(s).wallet;
  const data: Partial<WalletFacts> = wallet ?? {};
  return { type: wallet?.type, data };
}
