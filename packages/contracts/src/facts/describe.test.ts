import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, beginCell, Cell, loadStateInit, toNano } from '@ton/core';
import { Blockchain, createShardAccount } from '@ton/sandbox';
import { WalletContractV1R3, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import type { AccountStateRecord } from '@tonstream/records';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../test-support/mainnet.js';
import { describeAccount, factsOf } from './describe.js';

const b64 = (c: Cell) => c.toBoc().toString('base64');
const active = (code: Cell, data: Cell | null) => ({ status: 'active' as const, code_hash: code.hash().toString('base64'), code_boc: b64(code), data_boc: data && b64(data) });

type TraceFixture = {
  transactions?: { messages: { destination: string | null; init_state?: { body: string } | null }[] }[];
  interfaces?: Record<string, { JettonWallet?: { owner: string; jetton: string }; NftItem?: unknown }>;
};

/*
 * The golden traces (test/fixtures/mainnet/traces, toncenter's answers) name the Jetton wallets and
 * NFT items they touch, with each wallet's owner and master as toncenter's indexer read them. A
 * contract the trace deployed carries its StateInit: its code and first data, whose owner and
 * master a Jetton wallet keeps for good.
 */
describe('describeAccount() on contracts deployed in the mainnet golden traces', () => {
  const deployed: { address: string; facts: ReturnType<typeof describeAccount>; toncenter: NonNullable<TraceFixture['interfaces']>[string] }[] = [];
  const dir = join(FIXTURES, 'traces');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const trace = JSON.parse(readFileSync(join(dir, file), 'utf8')) as TraceFixture;
    const inits = new Map<string, string>();
    for (const t of trace.transactions ?? []) for (const m of t.messages) if (m.init_state?.body && m.destination) inits.set(m.destination, m.init_state.body);
    for (const [address, toncenter] of Object.entries(trace.interfaces ?? {})) {
      const init = inits.get(address);
      if (!init) continue;
      const { code, data } = loadStateInit(Cell.fromBase64(init).beginParse());
      deployed.push({ address, facts: describeAccount(active(code!, data ?? null)), toncenter });
    }
  }

  it("reads each Jetton wallet's owner and master as toncenter names them", () => {
    const wallets = deployed.filter((d) => d.toncenter.JettonWallet);
    const read = wallets.filter((d) => d.facts.jetton_wallet);
    // 80 deployed wallets; 21 run library code the built-in table does not know (no resolver), 6 have a data layout of their own.
    expect(read.length).toBeGreaterThanOrEqual(50);
    for (const { address, facts, toncenter } of read) {
      expect(facts.interfaces, address).toContain('jetton_wallet');
      expect({ owner: facts.jetton_wallet!.owner, jetton: facts.jetton_wallet!.jetton }, address).toEqual({ owner: toncenter.JettonWallet!.owner, jetton: toncenter.JettonWallet!.jetton });
    }
    // Nothing toncenter does not call a Jetton wallet reads as one.
    expect(deployed.filter((d) => d.facts.jetton_wallet && !d.toncenter.JettonWallet)).toEqual([]);
  });

  it('names the NFT items toncenter names', () => {
    const items = deployed.filter((d) => d.toncenter.NftItem);
    expect(items.length).toBeGreaterThan(0);
    for (const { address, facts } of items) expect(facts.interfaces, address).toContain('nft_item');
  });

  it('gives plain JSON: the facts survive a JSON round trip unchanged', () => {
    for (const { facts } of deployed) expect(JSON.parse(JSON.stringify(facts))).toEqual(facts);
  });
});

describe('describeAccount() on standard wallets, against their own get-methods (TON emulator)', () => {
  const publicKey = Buffer.alloc(32, 7);
  let chain: Blockchain;
  beforeAll(async () => {
    chain = await Blockchain.create();
  });
  const run = async (code: Cell, data: Cell, method: string) => {
    const address = new Address(0, code.hash());
    await chain.setShardAccount(address, createShardAccount({ address, code, data, balance: toNano('1') }));
    const r = await chain.runGetMethod(address, method);
    expect(r.exitCode, method).toBe(0);
    return r.stackReader;
  };

  it('v4 r2 and v5 r1: seqno and wallet id of a used wallet; v5 r1 whether signatures are allowed', async () => {
    const v4 = WalletContractV4.create({ workchain: 0, publicKey }).init.code;
    const v4Data = beginCell().storeUint(42, 32).storeUint(7, 32).storeBuffer(publicKey).storeBit(0).endCell();
    const v4Facts = describeAccount(active(v4, v4Data));
    expect(v4Facts.interfaces).toEqual(['wallet_v4r2']);
    expect(v4Facts.wallet).toEqual({ type: 'wallet v4 r2', seqno: (await run(v4, v4Data, 'seqno')).readNumber(), wallet_id: (await run(v4, v4Data, 'get_subwallet_id')).readNumber() });

    const v5 = WalletContractV5R1.create({ publicKey }).init.code;
    const v5Data = beginCell().storeBit(0).storeUint(0xfffffffe, 32).storeUint(0x80000001, 32).storeBuffer(publicKey).storeBit(0).endCell();
    expect(describeAccount(active(v5, v5Data)).wallet).toEqual({
      type: 'wallet v5 r1',
      seqno: (await run(v5, v5Data, 'seqno')).readNumber(),
      wallet_id: (await run(v5, v5Data, 'get_subwallet_id')).readNumber(),
      is_signature_allowed: (await run(v5, v5Data, 'is_signature_allowed')).readBoolean(),
    });
  });

  it('v1 r3: seqno', async () => {
    const v1 = WalletContractV1R3.create({ workchain: 0, publicKey }).init.code;
    const data = beginCell().storeUint(9, 32).storeBuffer(publicKey).endCell();
    expect(describeAccount(active(v1, data)).wallet).toEqual({ type: 'wallet v1 r3', seqno: (await run(v1, data, 'seqno')).readNumber() });
  });
});

describe('describeAccount() by account status', () => {
  const v4 = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32, 1) }).init;

  it('reads the data of active accounts only; an account without code has no interfaces', () => {
    expect(describeAccount({ ...active(v4.code, v4.data), status: 'frozen' })).toEqual({ interfaces: ['wallet_v4r2'], methods: expect.any(Array) });
    expect(describeAccount({ status: 'uninit', code_hash: null, code_boc: null, data_boc: null })).toEqual({ interfaces: [], methods: null });
    expect(describeAccount({ status: 'nonexist', code_hash: null, code_boc: null, data_boc: null })).toEqual({ interfaces: [], methods: null });
  });

  it('a known wallet code without data (or data that does not parse) is still a wallet, of that type only', () => {
    expect(describeAccount(active(v4.code, null)).wallet).toEqual({ type: 'wallet v4 r2' });
    expect(describeAccount({ ...active(v4.code, null), data_boc: 'bm90IGEgYm9j' }).wallet).toEqual({ type: 'wallet v4 r2' });
  });
});

describe('factsOf()', () => {
  const { code, data } = WalletContractV4.create({ workchain: 0, publicKey: Buffer.alloc(32, 2) }).init;
  const state = { ...active(code, data) } as Pick<AccountStateRecord, 'status' | 'code_hash' | 'code_boc' | 'data_boc' | 'contract'>;

  it("takes the facts a record carries as they are (the decoder's), without reading code or data", () => {
    const carried = { interfaces: ['jetton_wallet'], methods: null, jetton_wallet: { balance: '1', owner: '0:AA', jetton: '0:BB' } };
    expect(factsOf({ ...state, contract: carried })).toBe(carried);
  });

  it('derives them for a record without (written before the decoder carried them, or read back from the store)', () => {
    expect(factsOf(state)).toEqual(describeAccount(state));
    expect(factsOf(state).wallet).toEqual({ type: 'wallet v4 r2', seqno: 0, wallet_id: 698983191 });
  });
});
