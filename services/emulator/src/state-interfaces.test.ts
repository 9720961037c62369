import { type Address, beginCell, contractAddress, storeShardAccount, toNano } from '@ton/core';
import { JettonMinter, NftCollection, NftItem, storeNftItemParams, storeNftMintMessage, storeNftTransferMessage } from '@ton-community/assets-sdk';
import { Blockchain } from '@ton/sandbox';
import { describe, expect, it } from 'vitest';
import { interfacesOfStates, pendingLookup } from './state-interfaces.js';

const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;

async function shardAccountOf(bc: Blockchain, a: Address): Promise<string> {
  return beginCell().store(storeShardAccount((await bc.getContract(a)).account)).endCell().toBoc().toString('base64');
}

describe('interfacesOfStates()', () => {
  it('reads an NFT item (collection, index, owner after the transfer) and a Jetton master from sandbox states; a wallet proves nothing', async () => {
    const bc = await Blockchain.create();
    const owner = await bc.treasury('owner');
    const receiver = await bc.treasury('receiver');
    const collection = NftCollection.createFromConfig({ admin: owner.address, content: beginCell().storeUint(1, 8).storeStringTail('https://x.invalid/c/').endCell() });
    const mint = beginCell().store(storeNftMintMessage({ queryId: 1n, itemIndex: 0n, value: toNano('0.03'), itemParams: { owner: owner.address, individualContent: '0.json' } }, storeNftItemParams)).endCell();
    await owner.send({ to: collection.address, value: toNano('0.5'), init: collection.init, body: mint });
    // The collection mints the next index only. nft-item init data: index:uint64 collection_address:MsgAddress (TEP-62 reference item)
    const item = contractAddress(0, { code: NftItem.nftCode, data: beginCell().storeUint(0, 64).storeAddress(collection.address).endCell() });
    const transfer = beginCell().store(storeNftTransferMessage({ queryId: 2n, newOwner: receiver.address, responseDestination: owner.address, customPayload: null, forwardAmount: 0n, forwardPayload: null })).endCell();
    const moved = await owner.send({ to: item, value: toNano('0.08'), body: transfer });
    expect(moved.transactions.some((t) => t.inMessage?.info.dest?.toString() === item.toString())).toBe(true);
    const minter = JettonMinter.createFromConfig({ admin: owner.address, content: beginCell().storeUint(1, 8).storeStringTail('https://x.invalid/j.json').endCell() });
    await owner.send({ to: minter.address, value: toNano('0.1'), init: minter.init });

    const states = new Map<string, string>();
    for (const a of [item, minter.address, owner.address]) states.set(raw(a), await shardAccountOf(bc, a));
    states.set('0:' + '00'.repeat(32), 'not a BoC');
    const found = interfacesOfStates(states);

    expect([...found.keys()].sort()).toEqual([raw(item), raw(minter.address)].sort());
    expect(found.get(raw(item))?.NftItem).toMatchObject({ address: raw(item), index: '0', collection_address: raw(collection.address), owner_address: raw(receiver.address) });
    expect(found.get(raw(minter.address))?.JettonMaster).toEqual({ address: raw(minter.address) });
  });
});

describe('pendingLookup()', () => {
  it('prefers the probed Jetton wallet (balance after the trace) and keeps what the states show', () => {
    const fromStates = new Map([
      ['0:A', { JettonWallet: { address: '0:A', owner: '0:O', jetton: '0:J', balance: '1' }, JettonMaster: { address: '0:A' } }],
      ['0:N', { NftItem: { address: '0:N', index: '1', collection_address: '0:C', owner_address: '0:O' } }],
    ]);
    const lookup = pendingLookup({ '0:A': { JettonWallet: { address: '0:A', owner: '0:O', jetton: '0:J', balance: '700' } } }, fromStates);
    expect(lookup('0:A')).toEqual({ JettonWallet: { address: '0:A', owner: '0:O', jetton: '0:J', balance: '700' }, JettonMaster: { address: '0:A' } });
    expect(lookup('0:N')).toEqual(fromStates.get('0:N'));
    expect(lookup('0:X')).toBeUndefined();
  });
});
