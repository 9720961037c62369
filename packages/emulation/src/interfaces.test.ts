import { randomBytes } from 'node:crypto';
import { Address, beginCell, external, internal, SendMode, storeMessage, storeShardAccount, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { JettonMinter, JettonWallet, storeJettonMintMessage, storeJettonTransferMessage } from '@ton-community/assets-sdk';
import { Blockchain, createShardAccount, Executor } from '@ton/sandbox';
import { WalletContractV4 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import type { ChainState } from './chain-state.js';
import { createTraceEmulator } from './emulate-trace.js';

const NOW = 1_760_000_000;
const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;

describe('detectInterfaces()', () => {
  it('names the Jetton wallets of a transfer with their owner, master and balance after the trace', async () => {
    const bc = await Blockchain.create();
    bc.now = NOW;
    const keys = keyPairFromSeed(randomBytes(32));
    const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
    await bc.setShardAccount(wallet.address, createShardAccount({ address: wallet.address, code: wallet.init.code, data: wallet.init.data, balance: toNano('10'), workchain: 0 }));
    const admin = await bc.treasury('admin');
    const minter = JettonMinter.createFromConfig({ admin: admin.address, content: beginCell().storeUint(1, 8).storeStringTail('https://x.invalid/j.json').endCell() });
    const walletOf = (owner: Address) => JettonWallet.createFromConfig({ owner, jettonMaster: minter.address, jettonWalletCode: JettonWallet.code }).address;
    const mint = beginCell().store(storeJettonMintMessage({ queryId: 1n, amount: 1000n, from: minter.address, to: wallet.address, responseAddress: admin.address, forwardPayload: null, forwardTonAmount: 0n, walletForwardValue: toNano('0.05') })).endCell();
    await admin.send({ to: minter.address, value: toNano('0.2'), init: minter.init, body: mint });
    const receiver = Address.parseRaw(`0:${randomBytes(32).toString('hex')}`);

    const transferBody = beginCell().store(storeJettonTransferMessage({ queryId: 2n, amount: 300n, destination: receiver, responseDestination: wallet.address, customPayload: null, forwardAmount: 1n, forwardPayload: null })).endCell();
    const body = wallet.createTransfer({ seqno: 0, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: walletOf(wallet.address), value: toNano('0.1'), body: transferBody })] });
    const boc = beginCell().store(storeMessage(external({ to: wallet.address, body }))).endCell().toBoc();
    const state: ChainState = {
      head: async () => ({ seqno: 3, shard: '8000000000000000', rootHash: '', fileHash: '', utime: NOW - 1 }),
      account: async (_h, a) => ({ shardAccount: beginCell().store(storeShardAccount((await bc.getContract(Address.parseRaw(a))).account)).endCell().toBoc().toString('base64'), shardBlock: { workchain: 0, shard: '8000000000000000', seqno: 1 } }),
      config: async () => bc.configBase64,
      libraries: async () => new Map(),
    };
    const outcome = await createTraceEmulator({ state, executor: await Executor.create() }).emulate(boc);
    if (outcome.kind !== 'emulated') throw new Error(`rejected: ${outcome.reason}`);
    const jetton = raw(minter.address);
    expect(outcome.interfaces).toEqual({
      [raw(walletOf(wallet.address))]: { JettonWallet: { address: raw(walletOf(wallet.address)), owner: raw(wallet.address), jetton, balance: '700' } },
      [raw(walletOf(receiver))]: { JettonWallet: { address: raw(walletOf(receiver)), owner: raw(receiver), jetton, balance: '300' } },
    });
  });
});
