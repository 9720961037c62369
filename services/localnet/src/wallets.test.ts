/**
 * The prefunded wallets: on chain from the first block with their balances (read through the
 * unmodified ton-lite-client), listed in wallets.json as the service writes it, never spent by the
 * traffic generator, and spendable by anyone holding the mnemonic: keys from @ton/crypto, wallets
 * and transfers from @ton/ton, sent with liteServer.sendMessage.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, external, internal, loadTransaction, storeMessage, toNano } from '@ton/core';
import { mnemonicToPrivateKey, mnemonicValidate } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { type Chain, createChain, createTraffic, PREFUNDED_WALLETS, type Traffic } from '@tonstream/localnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connected, serve, type Served } from './test-support/harness.js';
import { prefundedWalletsOnChain, walletsBanner, writeWalletsFile } from './wallets-file.js';

const SEED = 'wallets-test';
const START_BALANCE = toNano(10_000);

let dir: string;
let chain: Chain;
let traffic: Traffic;
let served: Served;
let conn: Connected;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'localnet-wallets-'));
  chain = await createChain({ seed: SEED, shards: 2 });
  traffic = await createTraffic(chain, { seed: SEED, ratePerRound: 20 });
  served = await serve(chain, dir);
  conn = await connect(served.configPath);
}, 60_000);

afterAll(async () => {
  conn?.engine.close();
  traffic?.stop();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function walletOf(mnemonic: string, version: string) {
  const words = mnemonic.split(' ');
  expect(words).toHaveLength(24);
  expect(await mnemonicValidate(words)).toBe(true);
  const keys = await mnemonicToPrivateKey(words);
  const contract = version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey: keys.publicKey });
  return { keys, contract };
}

describe('prefunded wallets', () => {
  it('wallets.json lists 3 v4r2 and 3 v5r1 wallets whose addresses follow from their mnemonics, deployed with 10,000 TON from the first block', async () => {
    const path = join(dir, 'wallets.json');
    writeWalletsFile(path, await prefundedWalletsOnChain(chain));
    const file = JSON.parse(readFileSync(path, 'utf8')) as { mnemonic: string; version: string; address: string; balance: string }[];
    expect(file.map((w) => w.version).sort()).toEqual(['v4r2', 'v4r2', 'v4r2', 'v5r1', 'v5r1', 'v5r1']);
    expect(file.map((w) => Object.keys(w).sort())).toEqual(file.map(() => ['address', 'balance', 'mnemonic', 'version']));
    expect(file.map((w) => w.address)).toEqual(PREFUNDED_WALLETS.map((w) => w.address));
    const first = await conn.client.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: 1 });
    for (const w of file) {
      const { keys, contract } = await walletOf(w.mnemonic, w.version);
      expect(keys.publicKey.toString('hex')).toBe(PREFUNDED_WALLETS.find((p) => p.address === w.address)?.publicKey);
      expect(contract.address.toRawString()).toBe(w.address);
      expect(BigInt(w.balance)).toBe(START_BALANCE);
      const state = await conn.client.getAccountState(contract.address, first.id);
      expect(state.balance.coins).toBe(START_BALANCE);
      expect(state.state?.storage.state.type).toBe('active');
      const active = state.state!.storage.state as { type: 'active'; state: { code?: Cell | null; data?: Cell | null } };
      expect(active.state.code?.hash()).toEqual(contract.init.code.hash());
      expect(active.state.data?.hash()).toEqual(contract.init.data.hash());
    }
    const banner = walletsBanner(file, path);
    expect(banner).toContain('PUBLIC TEST KEYS');
    for (const w of file) expect(banner).toContain(w.mnemonic);
    expect(banner).toContain('10000.000000000 TON');
  });

  it('the traffic generator never spends them', async () => {
    for (let i = 0; i < 10; i++) await traffic.step();
    expect(traffic.stats().externals).toBeGreaterThan(100);
    const head = (await conn.client.getMasterchainInfo()).last;
    for (const w of PREFUNDED_WALLETS) {
      const state = await conn.client.getAccountState(Address.parse(w.address), head);
      // Deployed as in a zerostate: a ShardAccount with last_trans_lt 0 and no transaction since.
      expect(state.lastTx, `${w.address} has no transaction`).toEqual({ lt: 0n, hash: 0n });
      expect(state.balance.coins).toBe(START_BALANCE);
    }
  });

  it('a transfer signed with the mnemonic (v4r2 and v5r1) and sent with sendMessage lands on chain', async () => {
    for (const w of [PREFUNDED_WALLETS.find((x) => x.version === 'v4r2')!, PREFUNDED_WALLETS.find((x) => x.version === 'v5r1')!]) {
      const { keys, contract } = await walletOf(w.mnemonic, w.version);
      const opened = conn.client.open(contract);
      expect(await opened.getSeqno()).toBe(0);
      const dest = Address.parse(`0:${(w.version === 'v4r2' ? 'a1' : 'b2').repeat(32)}`);
      const messages = [internal({ to: dest, value: toNano(5), bounce: false, body: 'from a prefunded wallet' })];
      const body = w.version === 'v4r2'
        ? (contract as WalletContractV4).createTransfer({ seqno: 0, secretKey: keys.secretKey, sendMode: 3, messages })
        : (contract as WalletContractV5R1).createTransfer({ seqno: 0, secretKey: keys.secretKey, sendMode: 3, messages });
      const ext = beginCell().store(storeMessage(external({ to: contract.address, body }))).endCell();
      expect(await conn.client.sendMessage(ext.toBoc())).toEqual({ status: 1 });
      for (let i = 0; i < 3; i++) await traffic.step();

      const head = (await conn.client.getMasterchainInfo()).last;
      const state = await conn.client.getAccountState(contract.address, head);
      expect(state.lastTx).not.toBeNull();
      const hash = Buffer.from(state.lastTx!.hash.toString(16).padStart(64, '0'), 'hex');
      const list = await conn.client.getAccountTransactions(contract.address, state.lastTx!.lt.toString(), hash, 1);
      const tx = loadTransaction(Cell.fromBoc(list.transactions)[0].beginParse());
      expect(tx.inMessage?.info.type).toBe('external-in');
      expect(tx.inMessage?.body.hash()).toEqual(body.hash());
      expect(tx.outMessagesCount).toBe(1);
      const spent = START_BALANCE - state.balance.coins;
      expect(spent > toNano(5) && spent < toNano('5.1')).toBe(true);
      expect(await opened.getSeqno()).toBe(1);
      expect((await conn.client.getAccountState(dest, head)).balance.coins).toBe(toNano(5));

      // The same transfer again (seqno 0 is used now) and one with a wrong key: refused at once, as a node does.
      await expect(conn.client.sendMessage(ext.toBoc())).rejects.toThrow(/cannot apply external message to current state/);
      const forged = w.version === 'v4r2'
        ? (contract as WalletContractV4).createTransfer({ seqno: 1, secretKey: Buffer.alloc(64, 7), sendMode: 3, messages })
        : (contract as WalletContractV5R1).createTransfer({ seqno: 1, secretKey: Buffer.alloc(64, 7), sendMode: 3, messages });
      await expect(conn.client.sendMessage(beginCell().store(storeMessage(external({ to: contract.address, body: forged }))).endCell().toBoc())).rejects.toThrow(/cannot apply external message/);
      for (let i = 0; i < 2; i++) await traffic.step();
      expect(await opened.getSeqno()).toBe(1);
    }
  });
});
