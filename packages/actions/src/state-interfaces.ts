import { createInterfaceDetector, dataCell, readJettonWalletData, readNftItemData } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import type { ContractInterfaces } from './input.js';

/** Codes repeat (every wallet of a jetton shares one): each is parsed once per process. */
const detect = createInterfaceDetector();

/**
 * What an account state tells the classifier about its contract: the interfaces its code has
 * (@tonstream/contracts) and, read from its data by layout, a Jetton wallet's master and owner or an
 * NFT item's collection, index and owner. Undefined when the state proves nothing. A Jetton
 * wallet's master and owner and an item's collection never change, so a state from after the trace
 * serves as well as one from before it.
 */
export function contractInterfacesOf(s: AccountStateRecord): ContractInterfaces | undefined {
  if (s.status !== 'active' || s.code_hash === null) return undefined;
  const found = detect(s.code_hash, s.code_boc);
  if (found.interfaces.length === 0) return undefined;
  const data = dataCell(s.data_boc);
  if (!data) return undefined;
  const out: ContractInterfaces = {};
  if (found.interfaces.includes('jetton_wallet')) {
    const w = readJettonWalletData(data);
    if (w) out.JettonWallet = { address: s.account, owner: w.owner, jetton: w.jetton, balance: w.balance };
  }
  if (found.interfaces.includes('jetton_master')) out.JettonMaster = { address: s.account };
  if (found.interfaces.includes('nft_item')) {
    const i = readNftItemData(data);
    if (i) out.NftItem = { address: s.account, index: i.index, collection_address: i.collection_address, owner_address: i.owner_address, content: i.content };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
