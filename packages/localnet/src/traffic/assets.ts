import { type Address, beginCell, type Cell, contractAddress, toNano } from '@ton/core';
import {
  JettonMinter,
  JettonWallet,
  NftCollection,
  NftItem,
  storeJettonBurnMessage,
  storeJettonMintMessage,
  storeJettonTransferMessage,
  storeNftMintMessage,
  storeNftItemParams,
  storeNftTransferMessage,
} from '@ton-community/assets-sdk';

/** Jetton minter and wallets of @ton-community/assets-sdk (TEP-74), addresses computed locally. */
export type Jetton = {
  minter: Address;
  minterInit: { code: Cell; data: Cell };
  walletOf(owner: Address): Address;
};

export function createJetton(admin: Address, name: string): Jetton {
  const content = beginCell().storeUint(1, 8).storeStringTail(`https://localnet.invalid/${name}.json`).endCell();
  const minter = JettonMinter.createFromConfig({ admin, content });
  const wallets = new Map<string, Address>();
  return {
    minter: minter.address,
    minterInit: minter.init as { code: Cell; data: Cell },
    walletOf(owner) {
      const key = owner.toRawString();
      let a = wallets.get(key);
      if (!a) wallets.set(key, (a = JettonWallet.createFromConfig({ owner, jettonMaster: minter.address, jettonWalletCode: JettonWallet.code }).address));
      return a;
    },
  };
}

export const JETTON_GAS = toNano('0.1');
export const JETTON_FORWARD_TON = toNano('0.01');

export function jettonMintBody(d: { queryId: bigint; minter: Address; to: Address; amount: bigint; response: Address }): Cell {
  return beginCell()
    .store(storeJettonMintMessage({ queryId: d.queryId, amount: d.amount, from: d.minter, to: d.to, responseAddress: d.response, forwardPayload: null, forwardTonAmount: 0n, walletForwardValue: toNano('0.05') }))
    .endCell();
}

/** A transfer with a text comment as forward payload and forward TON, so the recipient gets a notification. */
export function jettonTransferBody(d: { queryId: bigint; amount: bigint; to: Address; response: Address; comment: string }): Cell {
  const forwardPayload = beginCell().storeUint(0, 32).storeStringTail(d.comment).endCell();
  return beginCell()
    .store(storeJettonTransferMessage({ queryId: d.queryId, amount: d.amount, destination: d.to, responseDestination: d.response, customPayload: null, forwardAmount: JETTON_FORWARD_TON, forwardPayload }))
    .endCell();
}

export function jettonBurnBody(d: { queryId: bigint; amount: bigint; response: Address }): Cell {
  return beginCell().store(storeJettonBurnMessage({ queryId: d.queryId, amount: d.amount, responseDestination: d.response, customPayload: null })).endCell();
}

/** NFT collection and items of @ton-community/assets-sdk (TEP-62), item addresses computed locally. */
export type NftSet = {
  collection: Address;
  collectionInit: { code: Cell; data: Cell };
  itemAddress(index: number): Address;
};

/**
 * The reference collection reads its content as `^collection_content ^common_content` (TEP-62):
 * get_collection_data answers the first ref, get_nft_content prefixes an item's individual content
 * with the second (untagged text). A bare TEP-64 cell there makes both fail with a cell underflow.
 */
export function nftCollectionContent(name: string): Cell {
  const collectionContent = beginCell().storeUint(1, 8).storeStringTail(`https://localnet.invalid/${name}.json`).endCell();
  const commonContent = beginCell().storeStringTail(`https://localnet.invalid/${name}/`).endCell();
  return beginCell().storeRef(collectionContent).storeRef(commonContent).endCell();
}

export function createNftSet(admin: Address, name: string): NftSet {
  const content = nftCollectionContent(name);
  const collection = NftCollection.createFromConfig({ admin, content });
  return {
    collection: collection.address,
    collectionInit: collection.init as { code: Cell; data: Cell },
    // nft-item init data: index:uint64 collection_address:MsgAddress
    itemAddress: (index) => contractAddress(0, { code: NftItem.nftCode, data: beginCell().storeUint(index, 64).storeAddress(collection.address).endCell() }),
  };
}

export const NFT_GAS = toNano('0.08');

export function nftMintBody(d: { queryId: bigint; index: number; owner: Address }): Cell {
  return beginCell()
    .store(storeNftMintMessage({ queryId: d.queryId, itemIndex: BigInt(d.index), value: toNano('0.03'), itemParams: { owner: d.owner, individualContent: `${d.index}.json` } }, storeNftItemParams))
    .endCell();
}

export function nftTransferBody(d: { queryId: bigint; newOwner: Address; response: Address }): Cell {
  return beginCell()
    .store(storeNftTransferMessage({ queryId: d.queryId, newOwner: d.newOwner, responseDestination: d.response, customPayload: null, forwardAmount: toNano('0.01'), forwardPayload: null }))
    .endCell();
}
