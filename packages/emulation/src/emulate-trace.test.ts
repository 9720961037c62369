import { randomBytes } from 'node:crypto';
import { Address, beginCell, Cell, external, internal, SendMode, storeMessage, storeMessageRelaxed, storeShardAccount } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { Blockchain, createShardAccount, Executor } from '@ton/sandbox';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChainState, HeadBlock } from './chain-state.js';
import { createTraceEmulator } from './emulate-trace.js';
import { parseExternal } from './external.js';
import { pendingRows, pendingTrace } from './pending-trace.js';

const NOW = 1_760_000_000;
const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;

/** The chain state as a sandbox Blockchain holds it: the emulator sees what the sandbox would run on. */
function sandboxState(bc: Blockchain): ChainState {
  const head: HeadBlock = { seqno: 100, shard: '8000000000000000', rootHash: '', fileHash: '', utime: NOW - 1 };
  return {
    head: async () => head,
    account: async (_h, address) => {
      const c = await bc.getContract(Address.parseRaw(address));
      return { shardAccount: beginCell().store(storeShardAccount(c.account)).endCell().toBoc().toString('base64'), shardBlock: { workchain: 0, shard: '8000000000000000', seqno: 7 } };
    },
    config: async () => bc.configBase64,
    libraries: async () => new Map(),
  };
}

type Wallet = WalletContractV4 | WalletContractV5R1;

async function deployWallet(bc: Blockchain, version: 'v4' | 'v5'): Promise<{ wallet: Wallet; secretKey: Buffer }> {
  const keys = keyPairFromSeed(randomBytes(32));
  const wallet = version === 'v4' ? WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }) : WalletContractV5R1.create({ workchain: 0, publicKey: keys.publicKey });
  await bc.setShardAccount(wallet.address, createShardAccount({ address: wallet.address, code: wallet.init.code, data: wallet.init.data, balance: 100n * 10n ** 9n, workchain: 0 }));
  return { wallet, secretKey: keys.secretKey };
}

function transferBoc(w: Wallet, secretKey: Buffer, seqno: number, to: Address, value: bigint, bounce: boolean, body?: Cell): Buffer {
  const messages = [internal({ to, value, bounce, body })];
  const sendMode = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;
  const transfer = w instanceof WalletContractV4 ? w.createTransfer({ seqno, secretKey, messages, sendMode, timeout: NOW + 600 }) : w.createTransfer({ seqno, secretKey, messages, sendMode, timeout: NOW + 600 });
  return beginCell().store(storeMessage(external({ to: w.address, body: transfer }))).endCell().toBoc();
}

let executor: Executor;
beforeAll(async () => {
  executor = await Executor.create();
});

async function newChain() {
  const bc = await Blockchain.create();
  bc.now = NOW;
  return bc;
}

describe('parseExternal()', () => {
  it('gives the raw and TEP-467 normalized hashes of the reference worked example', () => {
    // docs/traces-and-actions.md §1.4: a wallet v4 external of a mainnet trace, and its two hashes.
    const body = Cell.fromBase64(
      'te6cckECBAEAAVQAAZzx7o+J9GsSjRuBNq8Y+xu+QoVSbvw1mOyiCQ17k3cqxYVQTUYTclXp2xAugTB3t7tja9lnI+aH/zV7mLNY2ZQGKamjF2faM6YAAAARAAMBAWhiAFMjHRhMDNsPb0txDtSVHrMDUlckLEh+KxeooyEG2lOVoFqZXAAAAAAAAAAAAAAAAAABAgGyD4p+pQAAAOTj/4ZcUGTF86kYAO87mQKicbKgHIk4pSPP4k5xhHqutqYgAB7USnesDnCdADLGySJGgC0+KjFPBGegfZ7F4Zc0UhiGiXIKwWuRa/jDCA7msoEDANslk4VhgAIqFqMWTE1aoxM/MRD/EEluAMqKyKvv/FAn4CTTNIDD6g0lg5dNADLGySJGgC0+KjFPBGegfZ7F4Zc0UhiGiXIKwWuRa/jDMAMIfq9PQy9WnRsFg2Og42mSBvnU0w804lcVBYbnheggCj6Vv+M=',
    );
    const to = Address.parseRaw('0:CB1B24891A00B4F8A8C53C119E81F67B17865CD148621A25C82B05AE45AFE30C');
    const boc = beginCell().store(storeMessage(external({ to, body }))).endCell().toBoc();
    const ext = parseExternal(boc);
    expect(ext.hash).toBe('SsFQgjfWSOT8VVk+Yf0IEaj/RUXJBiqa5ayRaOeur+8=');
    expect(ext.hash_norm).toBe('j3A4LrLqnVmEtmk+JuPatoJRq3S1njudURP5oKNAZUk=');
    expect(ext.destination).toBe('0:CB1B24891A00B4F8A8C53C119E81F67B17865CD148621A25C82B05AE45AFE30C');
  });

  it('refuses an internal message and bytes that are no BoC', () => {
    const msg = beginCell().store(storeMessageRelaxed(internal({ to: Address.parseRaw(`0:${'11'.repeat(32)}`), value: 1n }))).endCell().toBoc();
    expect(() => parseExternal(msg)).toThrow(/external-in/);
    expect(() => parseExternal(Buffer.from('not a boc'))).toThrow(/not a message BoC/);
  });
});

describe('createTraceEmulator()', () => {
  for (const version of ['v4', 'v5'] as const) {
    it(`emulates a ${version} wallet transfer as the sandbox then runs it: same accounts, messages, success and fees`, async () => {
      const bc = await newChain();
      const from = await deployWallet(bc, version);
      const to = await deployWallet(bc, version);
      // A transaction before ours, so the wallet's last lt is not zero.
      await (await bc.treasury('funder')).send({ to: from.wallet.address, value: 10n ** 9n, bounce: false });
      const boc = transferBoc(from.wallet, from.secretKey, 0, to.wallet.address, 3n * 10n ** 9n, true, beginCell().storeUint(0, 32).storeStringTail('hi').endCell());
      const outcome = await createTraceEmulator({ state: sandboxState(bc), executor }).emulate(boc);
      if (outcome.kind !== 'emulated') throw new Error(`rejected: ${outcome.reason}`);

      const real = await bc.sendMessage(Cell.fromBoc(boc)[0]);
      const got = outcome.transactions.map((t) => t.record);
      expect(got.map((t) => t.account)).toEqual(real.transactions.map((t) => raw(new Address(0, Buffer.from(t.address.toString(16).padStart(64, '0'), 'hex')))));
      expect(got[0].in_msg?.hash).toBe(real.transactions[0].raw.refs[0].beginParse().loadMaybeRef()!.hash().toString('base64'));
      expect(got[0].total_fees).toBe(real.transactions[0].totalFees.coins.toString());
      for (const [i, t] of got.entries()) {
        const r = real.transactions[i];
        const d = r.description;
        expect(t.description.aborted).toBe(d.type === 'generic' ? d.aborted : undefined);
        expect(t.out_msgs.length).toBe(r.outMessagesCount);
        expect(t.in_msg?.message_content.hash).toBe(r.inMessage!.body.hash().toString('base64'));
      }
      // lt grows along the trace as on chain: after the account's last transaction, after the message's creation.
      expect(BigInt(got[0].lt)).toBeGreaterThan(BigInt(got[0].prev_trans_lt));
      expect(BigInt(got[1].lt)).toBeGreaterThan(BigInt(got[0].out_msgs[0].created_lt!));
      expect(outcome.transactions.map((t) => t.depth)).toEqual([0, 1]);
      expect(outcome.transactions[1].parent).toBe(got[0].hash);
      expect(outcome.limitExceeded).toBe(false);
      expect(got.every((t) => t.mc_block_seqno === 101 && t.block_ref.seqno === 8)).toBe(true);
    });
  }

  it('follows a bounce back to the wallet (three transactions, the middle one aborted)', async () => {
    const bc = await newChain();
    const from = await deployWallet(bc, 'v4');
    const nobody = Address.parseRaw(`0:${randomBytes(32).toString('hex')}`);
    const boc = transferBoc(from.wallet, from.secretKey, 0, nobody, 10n ** 9n, true);
    const outcome = await createTraceEmulator({ state: sandboxState(bc), executor }).emulate(boc);
    if (outcome.kind !== 'emulated') throw new Error(`rejected: ${outcome.reason}`);
    const txs = outcome.transactions.map((t) => t.record);
    expect(txs.map((t) => t.account)).toEqual([raw(from.wallet.address), raw(nobody), raw(from.wallet.address)]);
    expect(txs[1].description.aborted).toBe(true);
    expect(txs[2].in_msg?.bounced).toBe(true);
    // The bounced message the wallet receives is the one the aborted transaction sent.
    expect(txs[2].in_msg?.hash).toBe(txs[1].out_msgs[0].hash);
  });

  it('rejects an external the wallet refuses (wrong seqno) and emulates nothing', async () => {
    const bc = await newChain();
    const from = await deployWallet(bc, 'v4');
    const boc = transferBoc(from.wallet, from.secretKey, 5, from.wallet.address, 1n, false);
    const outcome = await createTraceEmulator({ state: sandboxState(bc), executor }).emulate(boc);
    expect(outcome.kind).toBe('rejected');
    await expect(bc.sendMessage(Cell.fromBoc(boc)[0])).rejects.toThrow(/not accepted/i);
  });

  it('stops at the depth limit and says so', async () => {
    const bc = await newChain();
    const from = await deployWallet(bc, 'v5');
    const boc = transferBoc(from.wallet, from.secretKey, 0, from.wallet.address, 1n, false);
    const outcome = await createTraceEmulator({ state: sandboxState(bc), executor, limits: { maxDepth: 0 } }).emulate(boc);
    if (outcome.kind !== 'emulated') throw new Error('rejected');
    expect(outcome.transactions).toHaveLength(1);
    expect(outcome.limitExceeded).toBe(true);
  });
});

describe('pendingTrace()', () => {
  it('counts, marks and flattens an emulated trace', async () => {
    const bc = await newChain();
    const from = await deployWallet(bc, 'v4');
    const nobody = Address.parseRaw(`0:${randomBytes(32).toString('hex')}`);
    const boc = transferBoc(from.wallet, from.secretKey, 0, nobody, 10n ** 9n, true);
    const outcome = await createTraceEmulator({ state: sandboxState(bc), executor }).emulate(boc);
    if (outcome.kind !== 'emulated') throw new Error('rejected');
    const { trace, transactions } = pendingTrace(outcome);
    const ext = parseExternal(boc);
    expect(trace.external_hash_norm).toBe(ext.hash_norm);
    expect(trace.trace_info).toEqual({ trace_state: 'pending', messages: 3, transactions: 3, pending_messages: 2, classification_state: 'unclassified' });
    expect(trace.nodes.map((n) => n.parent)).toEqual([null, transactions[0].hash, transactions[1].hash]);
    expect(transactions.every((t) => t.emulated && t.finality === 'pending' && t.trace_id === null && t.trace_external_hash_norm === ext.hash_norm)).toBe(true);
    const rows = pendingRows({ trace, transactions });
    expect(rows.transactions[0].in_msg).toEqual({ hash: ext.hash });
    expect(rows.messages.map((m) => `${m.direction}:${m.hash}`)).toEqual(transactions.flatMap((t) => [`in:${t.in_msg!.hash}`, ...t.out_msgs.map((m) => `out:${m.hash}`)]));
  });
});
