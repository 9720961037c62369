import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import type { JettonWalletState } from './events.js';

/**
 * A Jetton wallet's owner, master and balance from its state's contract facts (@tonstream/contracts,
 * as the tracer and the token tables read them); undefined for any other account. `jettons_change`
 * follows from this (§6.5).
 */
export function jettonWalletOf(state: AccountStateRecord): JettonWalletState | undefined {
  const w = factsOf(state).jetton_wallet;
  return w && { owner: w.owner, jetton: w.jetton, balance: w.balance };
}
