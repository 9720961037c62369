import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import type { ContractInterfaces } from './input.js';

/**
 * What an account state tells the classifier about its contract, from its facts (@tonstream/contracts
 * `factsOf`): a Jetton wallet's master, owner and balance, that it is a Jetton master, an NFT item's
 * collection, index, owner and content. Undefined when the state proves nothing. A Jetton wallet's
 * master and owner and an item's collection never change, so a state from after the trace serves as
 * well as one from before it.
 */
export function stateInterfaces(s: AccountStateRecord): ContractInterfaces | undefined {
  if (s.status !== 'active' || s.code_hash === null) return undefined;
  const facts = factsOf(s);
  const out: ContractInterfaces = {};
  const w = facts.jetton_wallet;
  if (w) out.JettonWallet = { address: s.account, owner: w.owner, jetton: w.jetton, balance: w.balance };
  if (facts.interfaces.includes('jetton_master') && s.data_boc !== null) out.JettonMaster = { address: s.account };
  const i = facts.nft_item;
  if (i) out.NftItem = { address: s.account, index: i.index, collection_address: i.collection_address, owner_address: i.owner_address, content: i.content };
  return Object.keys(out).length > 0 ? out : undefined;
}
