import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Account, Address, beginCell, Cell, loadAccount, storeAccount } from '@ton/core';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { accountStateRecord } from '@tonstream/block';
import type { AccountStateRecord } from '@tonstream/records';
import { recordBatch, saveWatermark, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, type Json, okJson, startApi } from './api-server.js';
import { raw } from '../support/ledger.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const LOCALNET = join(import.meta.dirname, '../fixtures/localnet');
const database = `tonstream_api_v3_accounts_${randomBytes(4).toString('hex')}`;

type FixtureState = { status: string; file: string; account: string; last_trans_lt: string; last_trans_hash_hex: string };
const FIXTURES = (JSON.parse(readFileSync(join(LOCALNET, 'account-states.json'), 'utf8')) as { states: FixtureState[] }).states;
const fixture = (status: string) => FIXTURES.find((f) => f.status === status)!;
const fixtureBoc = (status: string) => readFileSync(join(LOCALNET, fixture(status).file));
/** @ton/core's reading of a fixture (undefined for the empty BoC of a nonexistent account). */
const coreAccount = (status: string): { cell: Cell; account: Account } | undefined => {
  const boc = fixtureBoc(status);
  if (boc.length === 0) return undefined;
  const cell = Cell.fromBoc(boc)[0];
  const slice = cell.beginParse();
  // `account$1`: @ton/core's loadAccount reads what follows the tag (loadShardAccount reads the tag).
  expect(slice.loadBit()).toBe(true);
  return { cell, account: loadAccount(slice) };
};

const WATERMARK = 8;
const publicKey = Buffer.alloc(32, 9);
const v4 = WalletContractV4.create({ workchain: 0, publicKey });
const v5 = WalletContractV5R1.create({ publicKey });
/** A non-wallet contract (any code that is no wallet's). */
const contractCode = beginCell().storeUint(0xed44c8cc, 32).endCell();
const contractAddr = new Address(0, Buffer.alloc(32, 0xcc));
const lateAddr = new Address(0, Buffer.alloc(32, 0xdd));
const TON = 1_000_000_000n;

/** An active Account cell as @ton/core serialises it, then the record the decoder makes of it. */
function builtState(addr: Address, code: Cell, data: Cell, balance: bigint, lt: bigint, mcSeqno: number): AccountStateRecord {
  const account: Account = {
    addr,
    storageStats: { used: { cells: 1n, bits: 1n }, storageExtra: null, lastPaid: 0, duePayment: null },
    storage: { lastTransLt: lt, balance: { coins: balance }, state: { type: 'active', state: { code, data } } },
  };
  // The `account$1` tag, then what @ton/core's storeAccount writes.
  const boc = beginCell().storeBit(1).store(storeAccount(account)).endCell().toBoc();
  return accountStateRecord(boc, { account: raw(addr), lastTransLt: String(lt), lastTransHash: randomBytes(32).toString('base64'), mcSeqno, genUtime: 1700000000 + mcSeqno });
}

// v5 r1 data after five transfers: signatures allowed, seqno 5, the same wallet id.
const v5Used = beginCell().storeBit(1).storeUint(5, 32).storeUint(2147483409, 32).storeBuffer(publicKey).storeBit(0).endCell();
const BUILT = {
  v4: builtState(v4.address, v4.init.code, v4.init.data, 7n * TON, 1000n, 5),
  v5: builtState(v5.address, v5.init.code, v5.init.data, 2n * TON, 2000n, 6),
  contract: builtState(contractAddr, contractCode, beginCell().endCell(), 5000n * TON, 3000n, 8),
  // Above the watermark until the last test raises it.
  v5Newer: builtState(v5.address, v5.init.code, v5Used, 3n * TON, 4000n, 9),
  late: builtState(lateAddr, contractCode, beginCell().endCell(), 9000n * TON, 5000n, 9),
};

let store: Store;
let base: string;
let api: ApiUnderTest;

const get = (path: string, headers?: Record<string, string>) => getJson(base, path, headers);
const ok = <T = Json>(path: string, headers?: Record<string, string>) => okJson<T>(base, path, headers);
const settle = () => new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache
const q = (addresses: string[]) => addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&');
const accountsOf = (body: Json) => body.accounts as Json[];
const walletsOf = (body: Json) => body.wallets as Json[];

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  ({ store, base } = api);
});

afterAll(() => api.stop());

describe('accounts on an empty index', () => {
  it('answers empty, with X-Index-Mc-Seqno 0', async () => {
    const r = await get(`/api/v3/accountStates?${q([fixture('active').account])}`);
    expect(r).toMatchObject({ status: 200, body: { accounts: [], address_book: {}, metadata: {} } });
    expect(r.headers.get('x-index-mc-seqno')).toBe('0');
    expect(await ok(`/api/v3/walletStates?${q([fixture('active').account])}`)).toEqual({ wallets: [], address_book: {}, metadata: {} });
    expect(await ok('/api/v3/topAccountsByBalance')).toEqual([]);
  });
});

describe('accounts over the localnet states and built wallets', () => {
  beforeAll(async () => {
    const fixtureStates = FIXTURES.map((f) =>
      accountStateRecord(readFileSync(join(LOCALNET, f.file)), {
        account: f.account, lastTransLt: f.last_trans_lt, lastTransHash: Buffer.from(f.last_trans_hash_hex, 'hex').toString('base64'), mcSeqno: 7, genUtime: 1700000007,
      }),
    );
    // Written in two batches, the newer v5 state last: replays and out-of-order writes must not matter.
    await writeBatch(store, recordBatch({ accountStates: [...fixtureStates, BUILT.v4, BUILT.v5, BUILT.contract] }));
    await writeBatch(store, recordBatch({ accountStates: [BUILT.v5Newer, BUILT.late, BUILT.v4] }));
    await saveWatermark(store, { mc_seqno: WATERMARK, gen_utime: 1700000000 + WATERMARK });
    await settle();
  });

  it('accountStates: every status as @ton/core reads the fixture BoCs, with the exact AccountStateFull keys', async () => {
    const body = await ok(`/api/v3/accountStates?${q(FIXTURES.map((f) => f.account))}`);
    expect(Object.keys(body)).toEqual(['accounts', 'address_book', 'metadata']);
    expect(body.metadata).toEqual({});
    const accounts = accountsOf(body);
    expect(accounts.map((a) => a.address)).toEqual(FIXTURES.map((f) => f.account));
    for (const a of accounts) {
      const f = FIXTURES.find((x) => x.account === a.address)!;
      expect(a).toMatchObject({ status: f.status, last_transaction_lt: f.last_trans_lt, last_transaction_hash: Buffer.from(f.last_trans_hash_hex, 'hex').toString('base64') });
      // ton-index-go: no contract_methods row without code, DetectInterface of no methods is []; the
      // active fixture is a wallet v4 r2, its method ids unsigned (recv_external 2^19 - 1 last).
      if (f.status === 'active') expect(a).toMatchObject({ interfaces: ['wallet_v4r2'], contract_methods: expect.arrayContaining([0, 2 ** 19 - 1]) });
      else expect(a, f.status).toMatchObject({ contract_methods: null, interfaces: [] });
      const core = coreAccount(f.status);
      if (!core) {
        expect(a).toMatchObject({ balance: '0', extra_currencies: {} });
        continue;
      }
      expect(a.account_state_hash).toBe(core.cell.hash().toString('base64'));
      expect(a.balance).toBe(core.account.storage.balance.coins.toString());
      const st = core.account.storage.state;
      const keys = ['address', 'account_state_hash', 'balance', 'extra_currencies', 'status'];
      if (st.type === 'frozen') {
        keys.push('frozen_hash');
        expect(a.frozen_hash).toBe(Buffer.from(st.stateHash.toString(16).padStart(64, '0'), 'hex').toString('base64'));
      }
      keys.push('last_transaction_hash', 'last_transaction_lt');
      if (st.type === 'active') {
        keys.push('data_hash', 'code_hash', 'data_boc', 'code_boc');
        expect(a.code_hash).toBe(st.state.code!.hash().toString('base64'));
        expect(a.data_hash).toBe(st.state.data!.hash().toString('base64'));
        expect(Cell.fromBase64(a.code_boc as string).equals(st.state.code!)).toBe(true);
        expect(Cell.fromBase64(a.data_boc as string).equals(st.state.data!)).toBe(true);
      }
      keys.push('contract_methods', 'interfaces');
      expect(Object.keys(a), f.status).toEqual(keys);
    }
    // address_book: the accounts answered; the v4r2 wallet and the codeless accounts are non-bounceable.
    const book = body.address_book as Record<string, Json>;
    expect(Object.keys(book).sort()).toEqual(FIXTURES.map((f) => f.account).sort());
    for (const f of FIXTURES) expect(book[f.account].user_friendly).toBe(Address.parse(f.account).toString({ bounceable: false, urlSafe: true }));
  });

  it('accountStates: include_boc=false, user-friendly input, request order, repeats and unknown accounts', async () => {
    const active = fixture('active').account;
    const friendly = Address.parse(active).toString({ bounceable: true, urlSafe: false });
    const unknown = `0:${'ab'.repeat(32)}`;
    const body = await ok(`/api/v3/accountStates?${q([raw(contractAddr), friendly, unknown, active.toLowerCase()])}&include_boc=false`);
    const accounts = accountsOf(body);
    expect(accounts.map((a) => a.address)).toEqual([raw(contractAddr), active]);
    for (const a of accounts) expect(a).not.toHaveProperty('code_boc');
    for (const a of accounts) expect(a).not.toHaveProperty('data_boc');
    expect(accounts[1]).toHaveProperty('code_hash');
    // code_hash filter: only the wallet's code.
    const v4Code = v4.init.code.hash().toString('hex');
    const filtered = accountsOf(await ok(`/api/v3/accountStates?${q([raw(contractAddr), active, raw(v4.address)])}&code_hash=${v4Code}`));
    expect(filtered.map((a) => a.address)).toEqual([active, raw(v4.address)]);
    expect(await ok(`/api/v3/accountStates?${q([active])}`, { 'X-No-Address-Book': 'true' })).toMatchObject({ address_book: {} });
  });

  it('walletStates: type, seqno and wallet id from the wallets themselves; non-wallets are is_wallet false', async () => {
    const frozen = fixture('frozen').account;
    const body = await ok(`/api/v3/walletStates?${q([fixture('active').account, raw(v4.address), raw(v5.address), frozen, raw(contractAddr)])}`);
    expect(Object.keys(body)).toEqual(['wallets', 'address_book', 'metadata']);
    const [fixtureWallet, builtV4, builtV5, frozenState, contract] = walletsOf(body);
    // The fixture wallet (WalletContractV4, workchain 0: wallet id 698983191) sent two externals (SOURCES.md).
    expect(fixtureWallet).toMatchObject({ is_wallet: true, wallet_type: 'wallet v4 r2', seqno: 2, wallet_id: 698983191, status: 'active', balance: coreAccount('active')!.account.storage.balance.coins.toString() });
    expect(fixtureWallet).not.toHaveProperty('is_signature_allowed');
    // ton-index-go's WalletState: `extra_currencies,omitempty`, so none at all rather than {}.
    expect(fixtureWallet).not.toHaveProperty('extra_currencies');
    expect(builtV4).toEqual({
      address: raw(v4.address), is_wallet: true, wallet_type: 'wallet v4 r2', seqno: 0, wallet_id: v4.walletId, balance: String(7n * TON),
      status: 'active', code_hash: v4.init.code.hash().toString('base64'), last_transaction_hash: BUILT.v4.last_trans_hash, last_transaction_lt: '1000',
    });
    // The state at the watermark (mc 6), not the newer one at mc 9: seqno 0 of the init data, 2 TON.
    expect(builtV5).toMatchObject({ is_wallet: true, wallet_type: 'wallet v5 r1', seqno: 0, wallet_id: 2147483409, is_signature_allowed: true, balance: String(2n * TON), last_transaction_lt: '2000' });
    expect(frozenState).toMatchObject({ address: frozen, is_wallet: false, status: 'frozen' });
    expect(frozenState).not.toHaveProperty('wallet_type');
    expect(contract).toMatchObject({ is_wallet: false, status: 'active', code_hash: contractCode.hash().toString('base64') });
    expect(contract).not.toHaveProperty('seqno');
    expect((body.address_book as Record<string, Json>)[raw(contractAddr)].user_friendly).toBe(contractAddr.toString({ bounceable: true, urlSafe: true }));
  });

  it('addressBook: keyed by the exact strings sent, with detected interfaces; a non-address gets user_friendly null', async () => {
    const lower = raw(v4.address).toLowerCase();
    const friendly = contractAddr.toString({ bounceable: false, urlSafe: true });
    const codeless = fixture('uninit').account;
    const unknown = `0:${'ab'.repeat(32)}`;
    const nonBounceable = (a: string) => Address.parse(a).toString({ bounceable: false, urlSafe: true });
    const body = await ok<Record<string, Json>>(`/api/v3/addressBook?${q([lower, friendly, codeless, unknown, 'not-an-address'])}`);
    // interfaces as ton-index-go's address book: a known account without code null, an address it
    // has no state of [], a code without get-methods to match [].
    expect(body).toEqual({
      // @ton/ton's WalletContractV4 is wallet v4r2 code: toncenter's interface name for it.
      [lower]: { user_friendly: v4.address.toString({ bounceable: false, urlSafe: true }), domain: null, interfaces: ['wallet_v4r2'] },
      [friendly]: { user_friendly: contractAddr.toString({ bounceable: true, urlSafe: true }), domain: null, interfaces: [] },
      [codeless]: { user_friendly: nonBounceable(codeless), domain: null, interfaces: null },
      [unknown]: { user_friendly: nonBounceable(unknown), domain: null, interfaces: [] },
      'not-an-address': { user_friendly: null, domain: null, interfaces: [] },
    });
  });

  it('topAccountsByBalance: a bare array by balance desc, each account at its indexed state', async () => {
    const balances = new Map<string, bigint>([
      [raw(v4.address), 7n * TON], [raw(v5.address), 2n * TON], [raw(contractAddr), 5000n * TON],
      ...FIXTURES.map((f) => [f.account, coreAccount(f.status)?.account.storage.balance.coins ?? 0n] as [string, bigint]),
    ]);
    const expected = [...balances].sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x > y ? -1 : 1)).map(([account, b]) => ({ account, balance: b.toString() }));
    expect(await ok('/api/v3/topAccountsByBalance?limit=100')).toEqual(expected);
    expect(await ok('/api/v3/topAccountsByBalance?limit=2&offset=1')).toEqual(expected.slice(1, 3));
    expect(await ok('/api/v3/topAccountsByBalance')).toEqual(expected.slice(0, 10));
  });

  it('bad input: 422 naming the parameter, toncenter messages for a missing address, strict params', async () => {
    expect(await get('/api/v3/accountStates')).toMatchObject({ status: 422, body: { error: 'address of account is required' } });
    expect(await get('/api/v3/walletStates')).toMatchObject({ status: 422, body: { error: 'address of account is required' } });
    expect(await get('/api/v3/addressBook')).toMatchObject({ status: 422, body: { error: 'at least 1 address required' } });
    expect(((await get('/api/v3/accountStates?address=xyz')).body as Json).error).toContain('parameter "address"');
    expect(((await get(`/api/v3/accountStates?${q([raw(v4.address)])}&include_boc=maybe`)).body as Json).error).toContain('parameter "include_boc"');
    expect(((await get(`/api/v3/accountStates?${q([raw(v4.address)])}&code_hash=zz`)).body as Json).error).toContain('parameter "code_hash"');
    expect(await get('/api/v3/topAccountsByBalance?limit=1001')).toMatchObject({ status: 422, body: { error: 'limit is not allowed: 1001 > 1000' } });
    const strict = { 'X-Strict-Params': 'true' };
    expect(await get(`/api/v3/walletStates?${q([raw(v4.address)])}&adress=x`, strict)).toMatchObject({ status: 422, body: { error: 'unknown parameter "adress"' } });
    expect((await get(`/api/v3/walletStates?${q([raw(v4.address)])}&adress=x`)).status).toBe(200);
  });

  it('nothing above the watermark; raising it serves the newer states', async () => {
    const late = await ok(`/api/v3/accountStates?${q([raw(lateAddr)])}`);
    expect(late.accounts).toEqual([]);
    expect((await ok<Json[]>('/api/v3/topAccountsByBalance?limit=100')).map((r) => r.account)).not.toContain(raw(lateAddr));
    await saveWatermark(store, { mc_seqno: 9, gen_utime: 1700000009 });
    await settle();
    const [v5State] = walletsOf(await ok(`/api/v3/walletStates?${q([raw(v5.address)])}`));
    expect(v5State).toMatchObject({ seqno: 5, wallet_id: 2147483409, is_signature_allowed: true, balance: String(3n * TON), last_transaction_lt: '4000' });
    const top = await ok<Json[]>('/api/v3/topAccountsByBalance?limit=2');
    expect(top).toEqual([{ account: raw(lateAddr), balance: String(9000n * TON) }, { account: raw(contractAddr), balance: String(5000n * TON) }]);
  });
});

describe('accounts in the OpenAPI document', () => {
  it('declares the four endpoints with their parameters and schemas', async () => {
    const doc = await ok('/api/v3/openapi.json');
    const paths = doc.paths as Record<string, { get: { parameters: { name: string; required: boolean; schema: Json }[] } }>;
    for (const p of ['/api/v3/accountStates', '/api/v3/walletStates', '/api/v3/addressBook', '/api/v3/topAccountsByBalance']) expect(paths).toHaveProperty([p]);
    const params = paths['/api/v3/accountStates'].get.parameters;
    expect(params.find((p) => p.name === 'address')).toMatchObject({ required: true, schema: { type: 'array' } });
    expect(params.find((p) => p.name === 'include_boc')!.schema).toMatchObject({ default: true });
    expect(Object.keys((doc.components as { schemas: Json }).schemas)).toEqual(expect.arrayContaining(['AccountStateFull', 'WalletState', 'AccountBalance', 'AccountStatesResponse', 'WalletStatesResponse']));
  });
});
