import type { Cell } from '@ton/core';
import { createInterfaceDetector, readJettonWalletData, readNftItemData } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { cellsFromBoc } from './body-cell.js';
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
  // Only these three say anything here: other contracts (wallets first of all) need no data read.
  if (!found.interfaces.some((i) => i === 'jetton_wallet' || i === 'jetton_master' || i === 'nft_item')) return undefined;
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

/**
 * The data BoC as one cell, or null (as @tonstream/contracts' dataCell, i.e. Cell.fromBase64); its
 * hashes deferred: the tracer reads every touched account's data, and hashing it was a sixth of its time.
 */
function dataCell(boc: string | null): Cell | null {
  if (boc === null) return null;
  try {
    const roots = cellsFromBoc(Buffer.from(boc, 'base64'));
    return roots.length === 1 ? roots[0] : null;
  } catch {
    return null;
  }
}
