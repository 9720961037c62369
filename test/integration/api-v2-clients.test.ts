import { Address, Cell, internal, parseTuple, SendMode, serializeTuple, toNano, type Transaction } from '@ton/core';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { TonClient, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes.js';
import { startV2Stack, type V2Stack, type WalletEntry } from './api-v2-stack.js';

/**
 * The real clients, unchanged, against tonstream's /api/v2/jsonRPC on the local network: @ton/ton's
 * TonClient and tonweb's HttpProvider read balances and state, run get-methods, list transactions
 * and send signed transfers from the prefunded wallets, and see them confirmed. Every value is checked
 * against the chain itself: ton-lite-client on the localnet's liteserver, and the localnet's ledger.
 */
let stack: V2Stack;

/** The parts of tonweb (CommonJS, loosely typed) the tests use. */
type TonwebProvider = {
  getAddressInfo(address: string): Promise<unknown>;
  getMasterchainInfo(): Promise<unknown>;
  getBlockShards(seqno: number): Promise<unknown>;
  getMasterchainBlockHeader(seqno: number): Promise<unknown>;
  getMasterchainBlockTransactions(seqno: number, limit: number): Promise<unknown>;
};
type TonwebWallet = {
  getAddress(): Promise<{ toString(userFriendly: boolean, urlSafe: boolean, bounceable: boolean): string }>;
  methods: { seqno(): { call(): Promise<number> }; transfer(p: Record<string, unknown>): { send(): Promise<unknown> } };
};
type TonwebModule = {
  new (provider: TonwebProvider): { getBalance(a: string): Promise<string>; getTransactions(a: string, limit: number): Promise<unknown>; wallet: { all: Record<string, new (p: TonwebProvider, o: Record<string, unknown>) => TonwebWallet> } };
  HttpProvider: new (host: string) => TonwebProvider;
  utils: { toNano(amount: string): unknown };
};
const TonWeb = createRequire(import.meta.url)('tonweb') as TonwebModule;

beforeAll(async () => {
  stack = await startV2Stack('api-v2-clients');
});

afterAll(async () => {
  await stack?.stop();
});

const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex')}`;

/** The liteserver's own view of an account at its newest block. */
async function chainAccount(address: Address) {
  const last = (await stack.lite.getMasterchainInfo()).last;
  return stack.lite.getAccountState(address, last);
}

async function chainGetMethod(address: Address, method: string): Promise<bigint> {
  const last = (await stack.lite.getMasterchainInfo()).last;
  const res = await stack.lite.runMethod(address, method, serializeTuple([]).toBoc(), last);
  expect(res.exitCode).toBe(0);
  const [item] = parseTuple(Cell.fromBase64(res.result!));
  if (item.type !== 'int') throw new Error(`${method} gave ${item.type}`);
  return item.value;
}

/** Every transaction hash the chain produced (its ledger), with its account. */
function ledgerTransactions(): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of stack.ledger()) for (const b of r.blocks) for (const t of b.transactions) m.set(t.hash, t.account.toLowerCase());
  return m;
}

function wallet(kind: 'v4r2' | 'v5r1', index = 0): WalletEntry {
  const w = stack.wallets().filter((e) => e.version === kind)[index];
  expect(w, `wallets.json has a ${kind} wallet #${index}`).toBeDefined();
  return w;
}

describe('@ton/ton TonClient on /api/v2/jsonRPC', () => {
  it('reads a balance and contract state, runs a get-method, sends a v4 transfer and sees it confirmed', async () => {
    const entry = wallet('v4r2');
    const keys = await mnemonicToPrivateKey(entry.mnemonic.split(' '));
    const w = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
    expect(raw(w.address)).toBe(entry.address.toLowerCase());
    const client = new TonClient({ endpoint: `${stack.base}/api/v2/jsonRPC` });

    const chain = await chainAccount(w.address);
    expect(await client.getBalance(w.address)).toBe(chain.balance.coins);
    const state = await client.getContractState(w.address);
    expect(state.state).toBe('active');
    expect(state.balance).toBe(chain.balance.coins);
    const chainCode = chain.state?.storage.state.type === 'active' ? chain.state.storage.state.state.code : undefined;
    expect(state.code?.equals(chainCode!.toBoc())).toBe(true);

    const opened = client.open(w);
    const seqno = await opened.getSeqno();
    expect(BigInt(seqno)).toBe(await chainGetMethod(w.address, 'seqno'));

    const dest = new Address(0, Buffer.from(`c1${'0'.repeat(60)}${seqno.toString(16).padStart(2, '0')}`, 'hex'));
    const destBefore = (await chainAccount(dest)).balance.coins;
    await opened.sendTransfer({ seqno, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: dest, value: toNano('1.25'), bounce: false, body: 'tonclient transfer' })] });

    // Confirmed: the wallet's seqno moved on the chain, and TonClient lists the transaction.
    await eventually('the transfer on the chain', async () => ((await chainGetMethod(w.address, 'seqno')) === BigInt(seqno + 1) ? true : undefined), 60_000, 300);
    const sent: Transaction = await eventually(
      'the transfer in getTransactions',
      async () => {
        const txs = await client.getTransactions(w.address, { limit: 5 });
        return txs.find((t) => t.inMessage?.info.type === 'external-in' && t.outMessages.values().some((m) => m.info.dest instanceof Address && m.info.dest.equals(dest)));
      },
      60_000,
      500,
    );
    // The transaction TonClient parsed from `data` is the chain's: its hash is in the ledger, on the wallet.
    expect(ledgerTransactions().get(sent.hash().toString('base64'))).toBe(raw(w.address));
    const out = sent.outMessages.values().find((m) => m.info.dest instanceof Address && m.info.dest.equals(dest))!;
    expect(out.info.type === 'internal' && out.info.value.coins).toBe(toNano('1.25'));
    expect((await chainAccount(dest)).balance.coins).toBe(destBefore + toNano('1.25'));

    // The same transaction by lt and hash (TonClient.getTransaction: lt + hex hash, limit 1).
    const again = await client.getTransaction(w.address, sent.lt.toString(), sent.hash().toString('base64'));
    expect(again?.hash().equals(sent.hash())).toBe(true);
  });

  it('sends from a v5r1 wallet', async () => {
    const entry = wallet('v5r1');
    const keys = await mnemonicToPrivateKey(entry.mnemonic.split(' '));
    const w = WalletContractV5R1.create({ workchain: 0, publicKey: keys.publicKey });
    expect(raw(w.address)).toBe(entry.address.toLowerCase());
    const client = new TonClient({ endpoint: `${stack.base}/api/v2/jsonRPC` });
    const opened = client.open(w);
    const seqno = await opened.getSeqno();
    expect(BigInt(seqno)).toBe(await chainGetMethod(w.address, 'seqno'));
    const dest = new Address(0, Buffer.alloc(32, 0xc5));
    const before = (await chainAccount(dest)).balance.coins;
    await opened.sendTransfer({ seqno, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS, messages: [internal({ to: dest, value: toNano('0.5'), bounce: false })] });
    await eventually('the v5 transfer on the chain', async () => ((await chainAccount(dest)).balance.coins === before + toNano('0.5') ? true : undefined), 60_000, 300);
    expect(await opened.getSeqno()).toBe(seqno + 1);
  });
});

describe('tonweb HttpProvider on /api/v2/jsonRPC', () => {
  it('reads a balance and state, runs a get-method, sends a v4 transfer and sees it confirmed', async () => {
    const entry = wallet('v4r2', 1);
    const keys = await mnemonicToPrivateKey(entry.mnemonic.split(' '));
    const provider = new TonWeb.HttpProvider(`${stack.base}/api/v2/jsonRPC`);
    const tonweb = new TonWeb(provider);
    const WalletV4 = tonweb.wallet.all.v4R2;
    const w = new WalletV4(provider, { publicKey: keys.publicKey, wc: 0 });
    const address = (await w.getAddress()).toString(true, true, true);
    const core = Address.parse(address);
    expect(raw(core)).toBe(entry.address.toLowerCase());

    const chain = await chainAccount(core);
    expect(BigInt(await tonweb.getBalance(address))).toBe(chain.balance.coins);
    const info = (await provider.getAddressInfo(address)) as { state: string; balance: string; last_transaction_id: { lt: string } };
    expect(info.state).toBe('active');
    expect(info.balance).toBe(chain.balance.coins.toString());

    const seqno = (await w.methods.seqno().call()) as number;
    expect(BigInt(seqno)).toBe(await chainGetMethod(core, 'seqno'));

    const dest = new Address(0, Buffer.alloc(32, 0xe7));
    const destFriendly = dest.toString({ bounceable: false });
    const before = (await chainAccount(dest)).balance.coins;
    await w.methods.transfer({ secretKey: keys.secretKey, toAddress: destFriendly, amount: TonWeb.utils.toNano('0.75'), seqno, payload: 'tonweb transfer', sendMode: 3 }).send();

    await eventually('the tonweb transfer on the chain', async () => ((await chainAccount(dest)).balance.coins === before + toNano('0.75') ? true : undefined), 60_000, 300);
    type TonwebTx = { transaction_id: { hash: string }; in_msg: { source: string; message: string }; out_msgs: { destination: string; value: string; message: string }[] };
    const tx: TonwebTx = await eventually(
      'the transfer in tonweb getTransactions',
      async () => {
        const txs = (await tonweb.getTransactions(address, 5)) as TonwebTx[];
        return txs.find((t) => t.in_msg.source === '' && t.out_msgs.some((m) => Address.parse(m.destination).equals(dest)));
      },
      60_000,
      500,
    );
    expect(ledgerTransactions().get(tx.transaction_id.hash)).toBe(raw(core));
    const out = tx.out_msgs.find((m) => Address.parse(m.destination).equals(dest))!;
    expect(out.value).toBe(toNano('0.75').toString());
    expect(out.message).toBe('tonweb transfer');
    expect((await w.methods.seqno().call()) as number).toBe(seqno + 1);
  });

  it('reads blocks: masterchain info, shards, a block header and its transactions', async () => {
    const provider = new TonWeb.HttpProvider(`${stack.base}/api/v2/jsonRPC`);
    const info = (await provider.getMasterchainInfo()) as { last: { seqno: number; root_hash: string } };
    const chainLast = (await stack.lite.getMasterchainInfo()).last;
    expect(info.last.seqno).toBeGreaterThanOrEqual(chainLast.seqno - 5);
    const seqno = await stack.indexedAt(3);
    const round = stack.ledger().find((r) => r.mc_seqno === seqno)!;
    const shards = (await provider.getBlockShards(seqno)) as { shards: { seqno: number; root_hash: string }[] };
    const ledgerShardRoots = round.blocks.filter((b) => b.workchain === 0).map((b) => b.root_hash);
    // The shard tops of a round are its own shard blocks (every shard produces a block each round).
    expect(shards.shards.map((s) => s.root_hash).sort()).toEqual(ledgerShardRoots.sort());
    const header = (await provider.getMasterchainBlockHeader(seqno)) as { id: { root_hash: string }; prev_blocks: { seqno: number }[] };
    const mcBlock = round.blocks.find((b) => b.workchain === -1)!;
    expect(header.id.root_hash).toBe(mcBlock.root_hash);
    expect(header.prev_blocks.map((b) => b.seqno)).toEqual([seqno - 1]);
    const txs = (await provider.getMasterchainBlockTransactions(seqno, 100)) as { transactions: { hash: string }[] };
    expect(txs.transactions.map((t) => t.hash).sort()).toEqual(mcBlock.transactions.map((t) => t.hash).sort());
  });
});
