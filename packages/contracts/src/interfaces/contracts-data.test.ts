import { Address, beginCell, Cell, Dictionary, toNano, type TupleItem, type TupleReader } from '@ton/core';
import { Blockchain, createShardAccount } from '@ton/sandbox';
import { MultisigWallet } from '@ton/ton';
import { NftSale } from '@ton-community/assets-sdk';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { VESTING_V1_CODE_HEX } from '../../../localnet/src/traffic/vesting.js';
import { DNS_ITEM_CODE_HEX, MULTISIG_ORDER_CODE_HEX, MULTISIG_V2_CODE_HEX, NFT_AUCTION_V3R2_CODE_BASE64 } from '../test-support/contract-codes.js';
import { DETECTED_INTERFACES, detectInterfaces, dnsCategoryKey, NFT_SALE_INTERFACES, readDnsItemData, readMultisigData, readMultisigOrderData, readMultisigV1Data, readNftSaleData, readVestingData } from '../index.js';

const raw = (a: Address) => `${a.workChain}:${a.hash.toString('hex').toUpperCase()}`;
const rawOrNull = (a: Address | null) => (a ? raw(a) : null);
const fromHex = (hex: string) => Cell.fromBoc(Buffer.from(hex, 'hex'))[0];
const addr = (n: number) => new Address(0, createHash('sha256').update(`party-${n}`).digest());
const interfacesOf = (code: Cell) => detectInterfaces(code.hash().toString('base64'), code).interfaces;

const DNS_ITEM = fromHex(DNS_ITEM_CODE_HEX);
const MULTISIG = fromHex(MULTISIG_V2_CODE_HEX);
const ORDER = fromHex(MULTISIG_ORDER_CODE_HEX);
const VESTING = fromHex(VESTING_V1_CODE_HEX);
const AUCTION = Cell.fromBase64(NFT_AUCTION_V3R2_CODE_BASE64);
const MULTISIG_V1 = new MultisigWallet([Buffer.alloc(32, 1)], 0, 1, 1).init.code;

/** docs/toncenter-v3.md §4 "Detected interfaces": every name toncenter's `interfaces` can hold. */
const TONCENTER_INTERFACES = new Set(`airdrop_interlocker_v1 airdrop_interlocker_v2 bidask_pool bidask_range bidask_lp_multitoken
  bidask_internal_liquidity_vault cron daolama_vault dedust_factory dedust_pool dedust_vault dns gram_miner jetton_master
  jetton_wallet jetton_wallet_v1 jetton_wallet_v2 jetton_wallet_governed tonstake_pool validator_controller locker
  locker_bill lockup_vesting lockup_universal megatonfi_router megatonfi_exchange moon_pool moon_booster
  moon_order_factory moon_order multisig_v2 multisig_order_v2 nft_sale nft_auction_v1 nft_offer_getgems_v1
  nft_sale_getgems_v4 nft_sale_getgems_v3 nft_sale_getgems_v2 nft_auction_getgems_v3 nft_auction_getgems_v4
  nft_collection nft_item nft_item_simple editable sbt payment_channel pyth_price_oracle stonfi_pool stonfi_pool_v2
  stonfi_router_v2 stonfi_router stonfi_lp_account_v2 stonfi_vault_v2 omniston_referral storage_provider
  storage_contract storm_vamm storm_referral storm_referral_collection storm_executor storm_executor_collection
  storm_vault storm_position_manager subscription_v1 subscription_v2 coffee_mev_protector coffee_cross_dex
  coffee_staking_master coffee_staking_vault coffee_staking_item coffee_factory coffee_vault coffee_vault_native
  coffee_vault_jetton coffee_vault_extra coffee_pool jetton_wallet_coffee_lp teleitem tonco_pool tonco_router
  tonkeeper_2fa tv_pool wallet_v1r1 wallet_v1r2 wallet_v1r3 wallet_v2r1 wallet_v2r2 wallet_v3r1 wallet_v3r2
  wallet_v4r1 wallet_v4r2 wallet_v5_beta wallet_v5r1 wallet_highload_v1r1 wallet_highload_v1r2 wallet_highload_v2
  wallet_highload_v2r1 wallet_highload_v2r2 wallet_highload_v3r1 wallet_preprocessed_v2 wallet_vesting whales_pool
  x1000_wallet_v1 x1000_affiliate_account x1000_affiliate_program`.split(/\s+/));

function addressDict(addresses: Address[]): Cell {
  const d = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Address());
  addresses.forEach((a, i) => d.set(i, a));
  return beginCell().storeDictDirect(d).endCell();
}

function dictAddresses(cell: Cell | null): string[] {
  if (!cell) return [];
  const d = Dictionary.loadDirect(Dictionary.Keys.Uint(8), Dictionary.Values.Address(), cell);
  return d.keys().sort((a, b) => a - b).map((k) => raw(d.get(k)!));
}

describe('detectInterfaces() on DNS, multisig, vesting and sale code', () => {
  // Expected names: docs/toncenter-v3.md §4 "Detected interfaces" and ton-index-go's rule (a listed code
  // hash names one interface; otherwise every interface whose get-methods are all present, sorted).
  it('names codes toncenter lists by hash as that one interface', () => {
    // The vesting wallet, GetGems sale v3r2 (@ton-community/assets-sdk) and auction v3r2 codes hash to listed ones.
    expect(interfacesOf(VESTING)).toEqual(['wallet_vesting']);
    expect(interfacesOf(NftSale.code)).toEqual(['nft_sale_getgems_v3']);
    expect(interfacesOf(AUCTION)).toEqual(['nft_auction_getgems_v3']);
  });

  it('names other codes by the get-methods they have, sorted', () => {
    expect(interfacesOf(DNS_ITEM)).toEqual(['dns', 'editable', 'nft_item']);
    expect(interfacesOf(MULTISIG)).toEqual(['multisig_v2']);
    expect(interfacesOf(ORDER)).toEqual(['multisig_order_v2']);
    // A sale code toncenter does not know by hash: get_sale_data alone cannot tell a sale from an auction.
    const unknownSale = beginCell().storeSlice(NftSale.code.beginParse()).storeUint(0, 8).endCell();
    expect(interfacesOf(unknownSale)).toEqual(['nft_auction_v1', 'nft_sale']);
    // Multisig v1 has no name in toncenter's list.
    expect(interfacesOf(MULTISIG_V1)).toEqual([]);
  });

  it('can report only names in toncenter\'s list', () => {
    for (const name of [...DETECTED_INTERFACES, ...NFT_SALE_INTERFACES]) expect(TONCENTER_INTERFACES).toContain(name);
  });
});

describe('contract data layouts against the contracts\' own get-methods (TON emulator)', () => {
  let chain: Blockchain;
  beforeAll(async () => {
    chain = await Blockchain.create();
  });
  let seq = 0;
  const at = async (code: Cell, data: Cell) => {
    const address = new Address(0, createHash('sha256').update(`contract-${seq++}`).digest());
    await chain.setShardAccount(address, createShardAccount({ address, code, data, balance: toNano('1') }));
    return address;
  };
  const get = async (a: Address, method: string, args: TupleItem[] = []): Promise<TupleReader> => {
    const r = await chain.runGetMethod(a, method, args);
    expect(r.exitCode, `${method} exit code`).toBe(0);
    return r.stackReader;
  };

  it('DNS item: domain, owner and every record equal get_domain, get_nft_data and dnsresolve', async () => {
    const records = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    const wallet = addr(1);
    const resolver = addr(2);
    const adnl = Buffer.alloc(32, 0xab);
    const bag = Buffer.alloc(32, 0x5c);
    records.set(dnsCategoryKey('wallet'), beginCell().storeUint(0x9fd3, 16).storeAddress(wallet).storeUint(0, 8).endCell());
    records.set(dnsCategoryKey('dns_next_resolver'), beginCell().storeUint(0xba93, 16).storeAddress(resolver).endCell());
    records.set(dnsCategoryKey('site'), beginCell().storeUint(0xad01, 16).storeBuffer(adnl).storeUint(0, 8).endCell());
    records.set(dnsCategoryKey('storage'), beginCell().storeUint(0x7473, 16).storeBuffer(bag).endCell());
    const content = beginCell().storeUint(0, 8).storeDict(records).endCell();
    const index = (1n << 255n) + 77n;
    const data = beginCell().storeUint(index, 256).storeAddress(addr(3)).storeAddress(addr(4)).storeRef(content)
      .storeRef(beginCell().storeStringTail('tonstream').endCell()).storeMaybeRef(null).storeUint(1_700_000_000, 64).endCell();
    const a = await at(DNS_ITEM, data);
    const read = readDnsItemData(data)!;

    const nft = await get(a, 'get_nft_data');
    expect(nft.readBoolean()).toBe(true);
    expect(read.index).toBe(nft.readBigNumber().toString());
    expect(read.collection_address).toBe(raw(nft.readAddress()));
    expect(read.owner_address).toBe(raw(nft.readAddress()));
    expect(read.domain).toBe(`${(await get(a, 'get_domain')).readCell().beginParse().loadStringTail()}.ton`);

    const resolve = async (category: string) => {
      const r = await get(a, 'dnsresolve', [{ type: 'slice', cell: beginCell().storeUint(0, 8).endCell() }, { type: 'int', value: dnsCategoryKey(category) }]);
      expect(r.readNumber()).toBe(8);
      return r.readCell().beginParse();
    };
    const w = await resolve('wallet');
    expect(w.loadUint(16)).toBe(0x9fd3);
    expect(read.dns_wallet).toBe(raw(w.loadAddress()));
    const n = await resolve('dns_next_resolver');
    expect(n.loadUint(16)).toBe(0xba93);
    expect(read.dns_next_resolver).toBe(raw(n.loadAddress()));
    const site = await resolve('site');
    expect(site.loadUint(16)).toBe(0xad01);
    expect(read.dns_site_adnl).toBe(site.loadBuffer(32).toString('hex'));
    const storage = await resolve('storage');
    expect(storage.loadUint(16)).toBe(0x7473);
    expect(read.dns_storage_bag_id).toBe(storage.loadBuffer(32).toString('hex'));
  });

  it('DNS item before initialisation: index and collection only', () => {
    const data = beginCell().storeUint(5, 256).storeAddress(addr(3)).endCell();
    expect(readDnsItemData(data)).toMatchObject({ index: '5', collection_address: raw(addr(3)), domain: null, dns_wallet: null });
  });

  it('multisig v2: seqno, threshold, signers and proposers equal get_multisig_data', async () => {
    const signers = [addr(10), addr(11), addr(12)];
    const proposers = [addr(13)];
    const seqno = (1n << 200n) + 3n;
    const data = beginCell().storeUint(seqno, 256).storeUint(2, 8).storeRef(addressDict(signers)).storeUint(3, 8).storeMaybeRef(addressDict(proposers)).storeBit(false).endCell();
    const r = await get(await at(MULTISIG, data), 'get_multisig_data');
    const read = readMultisigData(data)!;
    expect(read.next_order_seqno).toBe(r.readBigNumber().toString());
    expect(read.threshold).toBe(r.readNumber());
    expect(read.signers).toEqual(dictAddresses(r.readCell()));
    expect(read.proposers).toEqual(dictAddresses(r.readCellOpt()));
    expect(read.signers).toEqual(signers.map(raw));
  });

  it('multisig v2 order: every field equals get_order_data', async () => {
    const order = beginCell().storeUint(0xf1381e5b, 32).endCell();
    const data = beginCell().storeAddress(addr(20)).storeUint(7, 256).storeUint(2, 8).storeBit(false).storeRef(addressDict([addr(21), addr(22)]))
      .storeUint(0b10, 256).storeUint(1, 8).storeUint(1_900_000_000, 48).storeRef(order).endCell();
    const r = await get(await at(ORDER, data), 'get_order_data');
    const read = readMultisigOrderData(data)!;
    expect(read.multisig_address).toBe(raw(r.readAddress()));
    expect(read.order_seqno).toBe(r.readBigNumber().toString());
    expect(read.threshold).toBe(r.readNumber());
    expect(read.sent_for_execution).toBe(r.readBoolean());
    expect(read.signers).toEqual(dictAddresses(r.readCell()));
    expect(read.approvals_mask).toBe(r.readBigNumber().toString());
    expect(read.approvals_num).toBe(r.readNumber());
    expect(read.expiration_date).toBe(r.readNumber());
    expect(read.order_boc).toBe(r.readCell().toBoc().toString('base64'));
  });

  it('multisig v1: n, k and the owners\' keys equal get_n_k and get_public_keys', async () => {
    const keys = [Buffer.alloc(32, 1), Buffer.alloc(32, 2), Buffer.alloc(32, 3)];
    const wallet = new MultisigWallet(keys, 0, 0x4d53, 2);
    const data = wallet.init.data;
    const a = await at(wallet.init.code, data);
    const read = readMultisigV1Data(data)!;
    const nk = await get(a, 'get_n_k');
    expect(read.n).toBe(nk.readNumber());
    expect(read.k).toBe(nk.readNumber());
    const pk = Dictionary.loadDirect(Dictionary.Keys.Uint(8), Dictionary.Values.Buffer(33), (await get(a, 'get_public_keys')).readCell());
    expect(read.public_keys).toEqual(pk.keys().sort((x, y) => x - y).map((i) => pk.get(i)!.subarray(0, 32).toString('hex')));
  });

  it('vesting: schedule, amount (above 2^64), parties and whitelist equal get_vesting_data and get_whitelist', async () => {
    const amount = (1n << 90n) + 5n;
    const whitelist = Dictionary.empty(Dictionary.Keys.BitString(264), { serialize: (v: boolean, b) => void b.storeBit(v), parse: (s) => s.loadBit() });
    for (const w of [addr(31), addr(32)]) whitelist.set(beginCell().storeInt(w.workChain, 8).storeBuffer(w.hash).endCell().beginParse().loadBits(264), true);
    const params = beginCell().storeUint(1_650_000_000, 64).storeUint(86_400 * 30, 32).storeUint(86_400, 32).storeUint(86_400 * 7, 32).storeCoins(amount).storeAddress(addr(33)).storeAddress(addr(34)).endCell();
    const data = beginCell().storeUint(0, 32).storeUint(0x10c, 32).storeBuffer(Buffer.alloc(32, 9)).storeDict(whitelist).storeRef(params).endCell();
    const a = await at(VESTING, data);
    const read = readVestingData(data)!;
    const r = await get(a, 'get_vesting_data');
    expect(read.start_time).toBe(r.readNumber());
    expect(read.total_duration).toBe(r.readNumber());
    expect(read.unlock_period).toBe(r.readNumber());
    expect(read.cliff_duration).toBe(r.readNumber());
    expect(read.total_amount).toBe(r.readBigNumber().toString());
    expect(read.sender_address).toBe(raw(r.readAddress()));
    expect(read.owner_address).toBe(raw(r.readAddress()));
    // get_whitelist answers a cons list of (workchain, hash) pairs.
    const served: string[] = [];
    let list = (await get(a, 'get_whitelist')).pop();
    while (list.type === 'tuple') {
      const [pair, tail] = list.items;
      if (pair.type !== 'tuple' || pair.items[0].type !== 'int' || pair.items[1].type !== 'int') throw new Error('not a pair of ints');
      served.push(`${pair.items[0].value}:${pair.items[1].value.toString(16).padStart(64, '0').toUpperCase()}`);
      list = tail;
    }
    expect([...read.whitelist].sort()).toEqual(served.sort());
    expect(read.whitelist).toHaveLength(2);
  });

  it('GetGems fixed-price sale v3: every field equals get_sale_data', async () => {
    const sale = NftSale.createFromConfig({ createdAt: 1_700_000_123, marketplace: addr(40), nft: addr(41), fullPrice: toNano('12.5'), marketplaceFeeTo: addr(42), marketplaceFee: toNano('0.5'), royaltyTo: addr(43), royalty: toNano('1'), canDeployByExternal: true });
    const data = beginCell().storeBit(true).storeUint(1_700_000_123, 32).storeAddress(addr(40)).storeAddress(addr(41)).storeAddress(addr(44)).storeCoins(toNano('12.5'))
      .storeRef(beginCell().storeAddress(addr(42)).storeCoins(toNano('0.5')).storeAddress(addr(43)).storeCoins(toNano('1'))).storeBit(true).endCell();
    const r = await get(await at(sale.init!.code, data), 'get_sale_data');
    const read = readNftSaleData(data)!;
    expect(read.type).toBe('getgems_sale');
    if (read.type !== 'getgems_sale') return;
    expect(r.readNumber()).toBe(0x46495850);
    expect(read.details.is_complete).toBe(r.readBoolean());
    expect(read.created_at).toBe(r.readNumber());
    expect(read.marketplace_address).toBe(raw(r.readAddress()));
    expect(read.nft_address).toBe(raw(r.readAddress()));
    expect(read.nft_owner_address).toBe(rawOrNull(r.readAddressOpt()));
    expect(read.details.full_price).toBe(r.readBigNumber().toString());
    expect(read.details.marketplace_fee_address).toBe(raw(r.readAddress()));
    expect(read.details.marketplace_fee).toBe(r.readBigNumber().toString());
    expect(read.details.royalty_address).toBe(raw(r.readAddress()));
    expect(read.details.royalty_amount).toBe(r.readBigNumber().toString());
  });

  it('GetGems auction v3r2: every field equals get_sale_data', async () => {
    const fees = beginCell().storeAddress(addr(50)).storeUint(5, 32).storeUint(100, 32).storeAddress(addr(51)).storeUint(7, 32).storeUint(1000, 32).endCell();
    const constants = beginCell().storeInt(9_909_000, 32).storeAddress(addr(52)).storeCoins(toNano(1)).storeCoins(toNano(100)).storeCoins(5).storeUint(300, 32).storeAddress(addr(53)).storeUint(1_700_000_000, 32).endCell();
    const data = beginCell().storeBit(false).storeBit(true).storeBit(false).storeAddress(addr(54)).storeCoins(toNano('3.5')).storeUint(1_700_000_500, 32).storeUint(1_700_086_400, 32).storeAddress(addr(55))
      .storeRef(fees).storeRef(constants).endCell();
    const r = await get(await at(AUCTION, data), 'get_sale_data');
    const read = readNftSaleData(data)!;
    expect(read.type).toBe('getgems_auction');
    if (read.type !== 'getgems_auction') return;
    const d = read.details;
    expect(r.readNumber()).toBe(0x415543);
    expect(d.end_flag).toBe(r.readBoolean());
    expect(d.end_time).toBe(r.readNumber());
    expect(read.marketplace_address).toBe(raw(r.readAddress()));
    expect(read.nft_address).toBe(raw(r.readAddress()));
    expect(read.nft_owner_address).toBe(raw(r.readAddress()));
    expect(d.last_bid).toBe(r.readBigNumber().toString());
    expect(d.last_member).toBe(raw(r.readAddress()));
    expect(d.min_step).toBe(r.readBigNumber().toString());
    expect(d.mp_fee_address).toBe(raw(r.readAddress()));
    expect(d.mp_fee_factor).toBe(r.readBigNumber().toString());
    expect(d.mp_fee_base).toBe(r.readBigNumber().toString());
    expect(d.royalty_fee_address).toBe(raw(r.readAddress()));
    expect(d.royalty_fee_factor).toBe(r.readBigNumber().toString());
    expect(d.royalty_fee_base).toBe(r.readBigNumber().toString());
    expect(d.max_bid).toBe(r.readBigNumber().toString());
    expect(d.min_bid).toBe(r.readBigNumber().toString());
    expect(read.created_at).toBe(r.readNumber());
    expect(d.last_bid_at).toBe(r.readNumber());
    expect(d.is_canceled).toBe(r.readBoolean());
  });

  it('refuses data that is not the layout', () => {
    const junk = beginCell().storeUint(1, 32).endCell();
    expect(readVestingData(junk)).toBeNull();
    expect(readMultisigData(junk)).toBeNull();
    expect(readNftSaleData(junk)).toBeNull();
    expect(readDnsItemData(junk)).toBeNull();
  });
});
