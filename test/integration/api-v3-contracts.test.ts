import { randomBytes } from 'node:crypto';
import { type Address, beginCell, toNano, type TupleItem, type TupleReader } from '@ton/core';
import { Blockchain, createShardAccount } from '@ton/sandbox';
import { dnsCategoryKey } from '@tonstream/contracts';
import { recordBatch, saveWatermark, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, type Json, okJson, startApi } from './api-server.js';
import {
  auction, CONTRACTS, contractStates, dictAddresses, dnsItem, dnsWallet, dnsWalletLater, multisig, order, payee, proposer, sale, signers, vesting, vestingOwner, vestingSender, whitelisted,
} from './contract-states.js';
import { raw } from '../support/ledger.js';

/*
 * /dns/records, /multisig/wallets, /multisig/orders, /vesting and /nft/sales over states the writer
 * stored, each value checked against the contract's own get-method run on the same code and data in
 * the TON emulator (@ton/sandbox): dnsresolve, get_multisig_data, get_order_data, get_vesting_data,
 * get_whitelist, get_sale_data. A newer version above the watermark must not be served.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_api_v3_contracts_${randomBytes(4).toString('hex')}`;
const WATERMARK = 8;

let api: ApiUnderTest;
let store: Store;
let chain: Blockchain;
const ok = <T = Json>(path: string) => okJson<T>(api.base, `/api/v3${path}`);
const get = async (a: Address, method: string, args: TupleItem[] = []): Promise<TupleReader> => {
  const r = await chain.runGetMethod(a, method, args);
  expect(r.exitCode, method).toBe(0);
  return r.stackReader;
};

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  store = api.store;
  chain = await Blockchain.create();
  for (const [a, code, data] of CONTRACTS) await chain.setShardAccount(a, createShardAccount({ address: a, code, data, balance: toNano(1) }));
  // The DNS item's next version (its wallet record moved) is stored but above the watermark.
  await writeBatch(store, recordBatch({ accountStates: contractStates(5, 9) }));
  await saveWatermark(store, { mc_seqno: WATERMARK, gen_utime: 1700000000 + WATERMARK });
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

describe('/api/v3/dns/records', () => {
  it('serves the item\'s domain and records as its get_domain and dnsresolve answer, by wallet and by domain', async () => {
    const byWallet = await ok<{ records: Json[]; address_book: Json }>(`/dns/records?wallet=${encodeURIComponent(dnsWallet.toString())}`);
    expect(byWallet.records).toHaveLength(1);
    const record = byWallet.records[0];
    const resolve = async (category: string) => {
      const r = await get(dnsItem, 'dnsresolve', [{ type: 'slice', cell: beginCell().storeUint(0, 8).endCell() }, { type: 'int', value: dnsCategoryKey(category) }]);
      expect(r.readNumber()).toBe(8);
      return r.readCell().beginParse().skip(16);
    };
    const nft = await get(dnsItem, 'get_nft_data');
    nft.skip(3);
    expect(record).toEqual({
      nft_item_address: raw(dnsItem),
      nft_item_owner: raw(nft.readAddress()),
      domain: `${(await get(dnsItem, 'get_domain')).readCell().beginParse().loadStringTail()}.ton`,
      dns_next_resolver: null,
      dns_wallet: raw((await resolve('wallet')).loadAddress()),
      dns_site_adnl: (await resolve('site')).loadBuffer(32).toString('hex'),
      dns_storage_bag_id: null,
    });
    expect(Object.keys(byWallet.address_book)).toContain(raw(dnsWallet));
    const byDomain = await ok<{ records: Json[] }>('/dns/records?domain=TonStream.ton');
    expect(byDomain.records).toEqual([record]);
  });

  it('serves the version at the watermark: the wallet of a later version finds nothing yet', async () => {
    expect((await ok<{ records: Json[] }>(`/dns/records?wallet=${raw(dnsWalletLater)}`)).records).toEqual([]);
  });

  it('needs exactly one of wallet and domain (422)', async () => {
    expect(await getJson(api.base, '/api/v3/dns/records')).toMatchObject({ status: 422, body: { error: 'either wallet address or domain is required' } });
    expect(await getJson(api.base, `/api/v3/dns/records?domain=a.ton&wallet=${raw(dnsWallet)}`)).toMatchObject({ status: 422, body: { error: 'provide either wallet address or domain, not both' } });
  });
});

describe('/api/v3/multisig', () => {
  it('finds the wallet by a signer or its proposer, with its orders; values equal get_multisig_data and get_order_data', async () => {
    const data = await get(multisig, 'get_multisig_data');
    const expected = { next_order_seqno: data.readBigNumber().toString(), threshold: data.readNumber(), signers: dictAddresses(data.readCell()), proposers: dictAddresses(data.readCellOpt()) };
    const o = await get(order, 'get_order_data');
    const expectedOrder = {
      address: raw(order), multisig_address: raw(o.readAddress()), order_seqno: o.readBigNumber().toString(), threshold: o.readNumber(), sent_for_execution: o.readBoolean(),
      signers: dictAddresses(o.readCell()), approvals_mask: o.readBigNumber().toString(), approvals_num: o.readNumber(), expiration_date: o.readNumber(), order_boc: o.readCell().toBoc().toString('base64'),
    };
    for (const party of [signers[1], proposer]) {
      const body = await ok<{ multisigs: Json[] }>(`/multisig/wallets?wallet_address=${raw(party)}`);
      expect(body.multisigs).toHaveLength(1);
      expect(body.multisigs[0]).toMatchObject({ address: raw(multisig), ...expected });
      expect(body.multisigs[0].orders).toEqual([expect.objectContaining(expectedOrder)]);
    }
    const without = await ok<{ multisigs: Json[] }>(`/multisig/wallets?address=${raw(multisig)}&include_orders=false`);
    expect(without.multisigs[0].orders).toBeNull();
    expect((await ok<{ multisigs: Json[] }>(`/multisig/wallets?wallet_address=${raw(payee)}`)).multisigs).toEqual([]);
  });

  it('parses an order\'s actions: the transfer it sends, as built', async () => {
    const body = await ok<{ orders: Json[] }>(`/multisig/orders?multisig_address=${raw(multisig)}&parse_actions=true`);
    expect(body.orders).toHaveLength(1);
    expect(body.orders[0].actions).toEqual([{
      destination: raw(payee), value: toNano('1.5').toString(), body_raw: beginCell().storeUint(0, 32).storeStringTail('rent').endCell().toBoc().toString('base64'),
      parsed: true, parsed_body: { comment: 'rent', encrypted: false }, parsed_body_type: 'ton_transfer', send_mode: 3,
    }]);
    expect((await ok<{ orders: Json[] }>(`/multisig/orders?address=${raw(order)}`)).orders[0]).not.toHaveProperty('actions');
  });

  it('needs a filter (422)', async () => {
    expect((await getJson(api.base, '/api/v3/multisig/wallets')).status).toBe(422);
    expect((await getJson(api.base, '/api/v3/multisig/orders')).status).toBe(422);
  });
});

describe('/api/v3/vesting', () => {
  it('finds the wallet by owner and sender (whitelisted only with check_whitelist); values equal get_vesting_data and get_whitelist', async () => {
    const r = await get(vesting, 'get_vesting_data');
    const expected = {
      address: raw(vesting), start_time: r.readNumber(), total_duration: r.readNumber(), unlock_period: r.readNumber(), cliff_duration: r.readNumber(),
      total_amount: r.readBigNumber().toString(), sender_address: raw(r.readAddress()), owner_address: raw(r.readAddress()),
    };
    let list = (await get(vesting, 'get_whitelist')).pop();
    const listed: string[] = [];
    while (list.type === 'tuple') {
      const [pair, tail] = list.items;
      if (pair.type !== 'tuple' || pair.items[0].type !== 'int' || pair.items[1].type !== 'int') throw new Error('not a (workchain, hash) pair');
      listed.push(`${pair.items[0].value}:${pair.items[1].value.toString(16).padStart(64, '0').toUpperCase()}`);
      list = tail;
    }
    for (const party of [vestingOwner, vestingSender]) {
      expect((await ok<{ vesting_contracts: Json[] }>(`/vesting?wallet_address=${raw(party)}`)).vesting_contracts).toEqual([{ ...expected, whitelist: listed }]);
    }
    expect((await ok<{ vesting_contracts: Json[] }>(`/vesting?wallet_address=${raw(whitelisted)}`)).vesting_contracts).toEqual([]);
    expect((await ok<{ vesting_contracts: Json[] }>(`/vesting?wallet_address=${raw(whitelisted)}&check_whitelist=true`)).vesting_contracts).toHaveLength(1);
    expect((await ok<{ vesting_contracts: Json[] }>(`/vesting?contract_address=${raw(vesting)}`)).vesting_contracts).toEqual([{ ...expected, whitelist: listed }]);
  });

  it('needs exactly one of contract_address and wallet_address (422)', async () => {
    expect((await getJson(api.base, '/api/v3/vesting')).status).toBe(422);
    expect((await getJson(api.base, `/api/v3/vesting?contract_address=${raw(vesting)}&wallet_address=${raw(vestingOwner)}`)).status).toBe(422);
  });
});

describe('/api/v3/nft/sales', () => {
  it('serves a fixed-price sale and an auction as their get_sale_data answer', async () => {
    const body = await ok<{ nft_sales: Json[] }>(`/nft/sales?address=${raw(sale)}&address=${raw(auction)}`);
    const byAddress = new Map(body.nft_sales.map((s) => [s.address, s]));
    const s = await get(sale, 'get_sale_data');
    expect(s.readNumber()).toBe(0x46495850);
    const isComplete = s.readBoolean();
    expect(byAddress.get(raw(sale))).toMatchObject({
      type: 'getgems_sale', created_at: s.readNumber(), marketplace_address: raw(s.readAddress()), nft_address: raw(s.readAddress()), nft_owner_address: raw(s.readAddress()),
      details: { is_complete: isComplete, full_price: s.readBigNumber().toString(), marketplace_fee_address: raw(s.readAddress()), marketplace_fee: s.readBigNumber().toString(), royalty_address: raw(s.readAddress()), royalty_amount: s.readBigNumber().toString() },
    });
    const a = await get(auction, 'get_sale_data');
    expect(a.readNumber()).toBe(0x415543);
    const endFlag = a.readBoolean();
    const endTime = a.readNumber();
    const common = { marketplace_address: raw(a.readAddress()), nft_address: raw(a.readAddress()), nft_owner_address: raw(a.readAddress()) };
    const details = {
      end_flag: endFlag, end_time: endTime, last_bid: a.readBigNumber().toString(), last_member: raw(a.readAddress()), min_step: a.readBigNumber().toString(),
      mp_fee_address: raw(a.readAddress()), mp_fee_factor: a.readBigNumber().toString(), mp_fee_base: a.readBigNumber().toString(),
      royalty_fee_address: raw(a.readAddress()), royalty_fee_factor: a.readBigNumber().toString(), royalty_fee_base: a.readBigNumber().toString(),
      max_bid: a.readBigNumber().toString(), min_bid: a.readBigNumber().toString(),
    };
    const createdAt = a.readNumber();
    expect(byAddress.get(raw(auction))).toMatchObject({ type: 'getgems_auction', ...common, created_at: createdAt, details: { ...details, last_bid_at: a.readNumber(), is_canceled: a.readBoolean() } });
  });

  it('needs an address (422)', async () => {
    expect(await getJson(api.base, '/api/v3/nft/sales')).toMatchObject({ status: 422, body: { error: 'at least 1 address required' } });
  });
});

describe('/api/v3/accountStates on these contracts', () => {
  it('names their interfaces as docs/toncenter-v3.md §4 lists them', async () => {
    const body = await ok<{ accounts: Json[] }>(`/accountStates?${[multisig, order, vesting, sale, auction, dnsItem].map((a) => `address=${raw(a)}`).join('&')}`);
    const interfaces = new Map(body.accounts.map((a) => [a.address, a.interfaces]));
    expect(interfaces.get(raw(multisig))).toEqual(['multisig_v2']);
    expect(interfaces.get(raw(order))).toEqual(['multisig_order_v2']);
    expect(interfaces.get(raw(vesting))).toEqual(['wallet_vesting']);
    // GetGems sale and auction v3r2, whose code hashes toncenter's detector lists.
    expect(interfaces.get(raw(sale))).toEqual(['nft_sale_getgems_v3']);
    expect(interfaces.get(raw(auction))).toEqual(['nft_auction_getgems_v3']);
    expect(interfaces.get(raw(dnsItem))).toEqual(['dns', 'editable', 'nft_item']);
  });
});
