import { contractInterfacesOf } from '@tonstream/actions';
import type { AccountStateRecord } from '@tonstream/records';
import type { JettonWalletState } from './events.js';

/**
 * A Jetton wallet's owner, master and balance read from its state (the interface detection and data
 * layouts of @tonstream/actions, as the tracer and the token tables use them); undefined for any
 * other account. `jettons_change` follows from this (§6.5).
 */
export function jettonWalletOf(state: AccountStateRecord): JettonWalletState | undefined {
  const w = contractInterfacesOf(state)?.JettonWallet;
  if (!w || w.balance === undefined) return undefined;
  return { owner: w.owner, jetton: w.jetton, balance: String(w.balance) };
}
