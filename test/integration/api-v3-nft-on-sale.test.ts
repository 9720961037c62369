import { createHash, randomBytes } from 'node:crypto';
import { Address, beginCell, type Cell, Dictionary, toNano } from '@ton/core';
import { NftItem, NftSale } from '@ton-community/assets-sdk';
import { dnsCategoryKey } from '@tonstream/contracts';
import { recordBatch, saveWatermark, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, type Json, okJson, startApi } from './api-server.js';
import { AUCTION, builtState, DNS } from './contract-states.js';
import { raw } from '../support/ledger.js';

/*
 * `/nft/items` sale fields and `include_on_sale`, and `address_book[...].domain`, over states the
 * writer stored from real contract code (NFT item, GetGems sale and auction, .ton DNS item). Every
 * expectation is the value this file put into the contracts' data: which contract holds which item,
 * whom each sale names as seller, which DNS item's owner and wallet record name which address.
 * Versions above the watermark must change nothing.
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_api_v3_nft_on_sale_${randomBytes(4).toString('hex')}`;
const WATERMARK = 8;
const AT = 5;
const LATER = 9;

const addr = (label: string) => new Address(0, createHash('sha256').update(`on-sale ${label}`).digest());

const collection = addr('collection');
const otherCollection = addr('other collection');
const seller = addr('seller');
const other = addr('other owner');
const buyer = addr('buyer');
const named = addr('named wallet');
const marketplace = addr('marketplace');

function itemData(index: number, owner: Address, inCollection = collection): Cell {
  return beginCell().storeUint(index, 64).storeAddress(inCollection).storeAddress(owner).storeRef(beginCell().storeStringTail(`${index}.json`).endCell()).endCell();
}

/** A GetGems fixed-price sale of `nft` by `by` (layout of nft-fixprice-sale-v2). */
function saleData(nft: Address, by: Address): Cell {
  return beginCell().storeBit(false).storeUint(1_700_000_123, 32).storeAddress(marketplace).storeAddress(nft).storeAddress(by).storeCoins(toNano(25))
    .storeRef(beginCell().storeAddress(addr('fee')).storeCoins(toNano(1)).storeAddress(addr('royalty')).storeCoins(toNano(2))).storeBit(true).endCell();
}

/** A GetGems auction (v3r2 layout) of `nft` by `by`. */
function auctionData(nft: Address, by: Address): Cell {
  return beginCell().storeBit(false).storeBit(true).storeBit(false).storeAddress(addr('bidder')).storeCoins(toNano(7)).storeUint(1_700_000_900, 32).storeUint(1_700_086_400, 32).storeAddress(by)
    .storeRef(beginCell().storeAddress(addr('fee')).storeUint(5, 32).storeUint(100, 32).storeAddress(addr('royalty')).storeUint(3, 32).storeUint(100, 32))
    .storeRef(beginCell().storeInt(9_909_000, 32).storeAddress(marketplace).storeCoins(toNano(1)).storeCoins(toNano(500)).storeCoins(5).storeUint(300, 32).storeAddress(nft).storeUint(1_700_000_000, 32)).endCell();
}

/** A .ton DNS item named `name` owned by `owner` whose wallet record is `wallet`. */
function dnsData(index: number, name: string, owner: Address, wallet: Address): Cell {
  const records = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  records.set(dnsCategoryKey('wallet'), beginCell().storeUint(0x9fd3, 16).storeAddress(wallet).storeUint(0, 8).endCell());
  return beginCell().storeUint(index, 256).storeAddress(addr('dns collection')).storeAddress(owner).storeRef(beginCell().storeUint(0, 8).storeDict(records).endCell())
    .storeRef(beginCell().storeStringTail(name).endCell()).storeMaybeRef(null).storeUint(1_700_000_000, 64).endCell();
}

// Items and who holds them at the watermark.
const listed = addr('item listed');          // held by `sale`, which sells it for `seller`
const auctioned = addr('item auctioned');    // held by `auction`, which auctions it for `seller`
const kept = addr('item kept');              // held by `seller` itself
const othersItem = addr('item of other');    // held by `other`
const sold = addr('item sold');              // `soldSale` sold it: now held by `buyer`
const stray = addr('item stray');            // held by `sale`, which sells another item
const lateListed = addr('item listed late'); // held by `lateSale`, whose state is above the watermark
const namedItem = addr('item of named');     // held by `named`, which has a domain
const elsewhere = addr('item elsewhere');    // held by `sale2`, listed by `seller`, in another collection
const sale = addr('sale');
const auction = addr('auction');
const soldSale = addr('sale sold');
const lateSale = addr('sale late');
const sale2 = addr('sale 2');

const ITEMS: [Address, number, Address, Address?][] = [
  [listed, 1, sale], [auctioned, 2, auction], [kept, 10, seller], [othersItem, 3, other], [sold, 4, buyer], [stray, 5, sale], [lateListed, 6, lateSale], [namedItem, 7, named],
  [elsewhere, 8, sale2, otherCollection],
];

let api: ApiUnderTest;
const ok = <T = Json>(path: string) => okJson<T>(api.base, `/api/v3${path}`);
type Item = Json & { address: string };
type ItemsBody = { nft_items: Item[]; address_book: Record<string, { domain: string | null }> };

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  let lt = 1000n;
  const at = (a: Address, code: Cell, data: Cell, mc = AT) => builtState(a, code, data, lt++, mc);
  const states = [
    ...ITEMS.map(([a, index, owner, c]) => at(a, NftItem.nftCode, itemData(index, owner, c))),
    at(sale, NftSale.code, saleData(listed, seller)),
    at(auction, AUCTION, auctionData(auctioned, seller)),
    at(soldSale, NftSale.code, saleData(sold, seller)),
    at(sale2, NftSale.code, saleData(elsewhere, seller)),
    // Above the watermark: the late sale's first state, and a version of `kept` that puts it on `sale`.
    at(lateSale, NftSale.code, saleData(lateListed, seller), LATER),
    at(kept, NftItem.nftCode, itemData(10, sale), LATER),
    // DNS: `named` owns three names with its wallet record; a shorter one whose owner is someone else;
    // an even shorter one only above the watermark.
    at(addr('dns 1'), DNS, dnsData(1, 'longername', named, named)),
    at(addr('dns 2'), DNS, dnsData(2, 'abd', named, named)),
    at(addr('dns 3'), DNS, dnsData(3, 'abc', named, named)),
    at(addr('dns 4'), DNS, dnsData(4, 'zz', other, named)),
    at(addr('dns 5'), DNS, dnsData(5, 'q', named, named), LATER),
  ];
  await writeBatch(api.store, recordBatch({ accountStates: states }));
  await saveWatermark(api.store, { mc_seqno: WATERMARK, gen_utime: 1700000000 + WATERMARK });
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const byAddress = (items: Item[]) => new Map(items.map((i) => [i.address, i]));
const SALE_KEYS = ['sale_contract_address', 'auction_contract_address', 'real_owner'];

describe('/api/v3/nft/items sale fields', () => {
  it('an item held by the sale or auction contract selling it is on sale: owner_address is the contract, real_owner the seller', async () => {
    const body = await ok<ItemsBody>(`/nft/items?${[listed, auctioned].map((a) => `address=${raw(a)}`).join('&')}`);
    const items = byAddress(body.nft_items);
    expect(items.get(raw(listed))).toMatchObject({ owner_address: raw(sale), on_sale: true, sale_contract_address: raw(sale), real_owner: raw(seller) });
    expect(items.get(raw(listed))).not.toHaveProperty('auction_contract_address');
    expect(items.get(raw(auctioned))).toMatchObject({ owner_address: raw(auction), on_sale: true, auction_contract_address: raw(auction), real_owner: raw(seller) });
    expect(items.get(raw(auctioned))).not.toHaveProperty('sale_contract_address');
    expect(Object.keys(body.address_book)).toEqual(expect.arrayContaining([raw(seller), raw(sale), raw(auction)]));
  });

  it('items not on sale keep on_sale false and no sale fields: held by a wallet, by a sale selling another item, by a sale indexed only above the watermark', async () => {
    const body = await ok<ItemsBody>(`/nft/items?${[kept, othersItem, sold, stray, lateListed].map((a) => `address=${raw(a)}`).join('&')}`);
    expect(body.nft_items).toHaveLength(5);
    const owners = new Map<string, Address>([[raw(kept), seller], [raw(othersItem), other], [raw(sold), buyer], [raw(stray), sale], [raw(lateListed), lateSale]]);
    for (const item of body.nft_items) {
      expect(item, item.address).toMatchObject({ on_sale: false, owner_address: raw(owners.get(item.address)!) });
      for (const key of SALE_KEYS) expect(item, item.address).not.toHaveProperty(key);
    }
  });

  it('owner_address alone: the items the owner holds itself', async () => {
    const body = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}`);
    expect(body.nft_items.map((i) => i.address)).toEqual([raw(kept)]);
  });

  it('owner_address with include_on_sale: also the items the owner has listed and whose sale still holds them, ordered by real owner, collection, index', async () => {
    const body = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&include_on_sale=true`);
    // Same collection for three of them (index 1, 2, 10); `elsewhere` in its own collection.
    const expected = [[listed, 1, collection], [auctioned, 2, collection], [kept, 10, collection], [elsewhere, 8, otherCollection]] as const;
    const ordered = [...expected].sort((a, b) => (raw(a[2]) === raw(b[2]) ? a[1] - b[1] : raw(a[2]) < raw(b[2]) ? -1 : 1));
    expect(body.nft_items.map((i) => i.address)).toEqual(ordered.map(([a]) => raw(a)));
    const items = byAddress(body.nft_items);
    expect(items.get(raw(elsewhere))).toMatchObject({ on_sale: true, owner_address: raw(sale2), sale_contract_address: raw(sale2), real_owner: raw(seller) });
    expect(items.get(raw(kept))).toMatchObject({ on_sale: false });
    // The sold item and the late listing are never the seller's.
    expect(items.has(raw(sold))).toBe(false);
    expect(items.has(raw(lateListed))).toBe(false);
  });

  it('include_on_sale keeps the other filters and pages over the merged list', async () => {
    const inCollection = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&include_on_sale=true&collection_address=${raw(otherCollection)}`);
    expect(inCollection.nft_items.map((i) => i.address)).toEqual([raw(elsewhere)]);
    const all = (await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&include_on_sale=true`)).nft_items.map((i) => i.address);
    const second = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&include_on_sale=true&limit=2&offset=1`);
    expect(second.nft_items.map((i) => i.address)).toEqual(all.slice(1, 3));
  });

  it('two owners with include_on_sale: each item under its real owner, owners in address order', async () => {
    const body = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&owner_address=${raw(other)}&include_on_sale=true`);
    const realOwner = (i: Item) => String(i.real_owner ?? i.owner_address);
    const owners = body.nft_items.map(realOwner);
    expect(owners).toEqual([...owners].sort());
    expect(new Set(owners)).toEqual(new Set([raw(seller), raw(other)]));
    expect(body.nft_items.map((i) => i.address)).toContain(raw(othersItem));
  });

  it('include_on_sale=false is the plain owner filter', async () => {
    const body = await ok<ItemsBody>(`/nft/items?owner_address=${raw(seller)}&include_on_sale=false`);
    expect(body.nft_items.map((i) => i.address)).toEqual([raw(kept)]);
  });
});

describe('address_book domain', () => {
  it('is the shortest (then first) name of a DNS item whose owner and wallet record are the address, at the watermark', async () => {
    const body = await ok<ItemsBody>(`/nft/items?owner_address=${raw(named)}`);
    expect(body.nft_items.map((i) => i.address)).toEqual([raw(namedItem)]);
    expect(body.address_book[raw(named)].domain).toBe('abc.ton');
  });

  it('is null for addresses without one (wallets, contracts, a name whose owner is someone else)', async () => {
    const body = await ok<ItemsBody>(`/nft/items?address=${raw(listed)}&address=${raw(othersItem)}`);
    for (const a of [listed, sale, seller, collection, othersItem, other]) expect(body.address_book[raw(a)]?.domain, raw(a)).toBeNull();
  });

  it('fills /addressBook (keyed by the strings sent) and /dns/records the same way', async () => {
    const friendly = named.toString({ bounceable: false, urlSafe: true });
    const book = await ok<Record<string, { user_friendly: string | null; domain: string | null }>>(`/addressBook?address=${friendly}&address=${raw(seller)}`);
    expect(book[friendly].domain).toBe('abc.ton');
    expect(book[raw(seller)].domain).toBeNull();
    const records = await ok<{ records: { domain: string }[]; address_book: Record<string, { domain: string | null }> }>(`/dns/records?wallet=${raw(named)}`);
    expect(records.records.map((r) => r.domain)).toEqual(['zz.ton', 'abc.ton', 'abd.ton', 'longername.ton']);
    expect(records.address_book[raw(named)].domain).toBe('abc.ton');
    expect(records.address_book[raw(other)].domain).toBeNull();
  });
});
