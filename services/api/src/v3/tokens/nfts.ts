import { type ContractRow, readNftCollections, readNftItems, readNftSalesBySeller, readSalesOfItems, readTokenEvents, type TokenRow } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { defineEndpoint } from '../endpoint.js';
import { sideObjects } from '../side-objects.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, optional, sort } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { NftCollectionsResponse, NftItemsResponse, NftTransfersResponse } from './schemas.js';
import { type NftCollectionObject, toNftCollection, toNftItem, toNftTransfer } from './objects.js';
import { ADDRS, nftIndex, transferDirection } from './params.js';

/**
 * The NFTs family (docs/toncenter-v3.md §2.4), read from the token tables (migration 9). An item whose
 * owner at the watermark is a sale or auction contract indexed for it (`nft_sales`, migration 13) is
 * on sale: `owner_address` stays the contract that holds it, `real_owner` is the seller.
 */

export const nftCollectionsEndpoint = defineEndpoint({
  path: '/nft/collections',
  operationId: 'getNftCollections',
  summary: 'NFT collections by address or owner',
  tag: 'nfts',
  params: { collection_address: ADDRS('Collection addresses'), owner_address: ADDRS('Owner addresses'), limit: limit(), offset: offset() },
  response: ref(NftCollectionsResponse),
  async handle(ctx) {
    const p = ctx.params;
    const rows = await readNftCollections(ctx.store, ctx.scope, { address: p.collection_address, owner: p.owner_address }, { limit: p.limit, offset: p.offset });
    const nft_collections = rows.map(toNftCollection);
    return { nft_collections, ...(await sideObjects(ctx, nft_collections.flatMap((c) => [c.address, c.owner_address]))) };
  },
});

export const nftItemsEndpoint = defineEndpoint({
  path: '/nft/items',
  operationId: 'getNftItems',
  summary: 'NFT items by address, owner, collection and index',
  tag: 'nfts',
  params: {
    address: ADDRS('Item addresses'),
    owner_address: ADDRS('Owner addresses'),
    collection_address: ADDRS('Collection addresses; more than one needs exactly one owner_address'),
    index: list(nftIndex, 'Item indexes (digits); needs collection_address.'),
    include_on_sale: optional(kinds.bool, 'With owner_address, also the items these owners have listed on a sale or auction contract (matched by real_owner).'),
    sort_by_last_transaction_lt: optional(kinds.bool, 'Order by last transaction lt, newest first.'),
    limit: limit(),
    offset: offset(),
  },
  response: ref(NftItemsResponse),
  async handle(ctx) {
    const p = ctx.params;
    if ((p.collection_address?.length ?? 0) > 1 && p.owner_address?.length !== 1) throw new HttpError(422, 'exact one owner_address required for multiple collection_address');
    if (p.index && !p.collection_address) throw new HttpError(422, 'index parameter is not allowed without the collection_address');
    const listings = p.include_on_sale && p.owner_address?.length
      ? (await readNftSalesBySeller(ctx.store, ctx.scope, p.owner_address)).map((s) => ({ sale: String(s.address), nft: String(s.nft_address), seller: String(s.nft_owner_address) }))
      : undefined;
    const rows = await readNftItems(ctx.store, ctx.scope, { address: p.address, owner: p.owner_address, collection: p.collection_address, index: p.index, byLastLt: p.sort_by_last_transaction_lt, listings }, { limit: p.limit, offset: p.offset });
    const wanted = [...new Set(rows.map((r) => String(r.collection_address)).filter((a) => a !== ''))];
    const collections = new Map<string, { object: NftCollectionObject; common: string }>();
    const [collectionRows, sales] = await Promise.all([
      wanted.length > 0 ? readNftCollections(ctx.store, ctx.scope, { address: wanted }, { limit: wanted.length, offset: 0 }) : Promise.resolve([] as TokenRow[]),
      readSalesOfItems(ctx.store, ctx.scope, rows.map((r) => ({ nft: String(r.address), owner: String(r.owner_address) }))),
    ]);
    for (const c of collectionRows) collections.set(String(c.address), { object: toNftCollection(c), common: String(c.common_content ?? '') });
    const saleOf = new Map(sales.map((s) => [String(s.nft_address), s]));
    const nft_items = rows.map((r) => ({ ...toNftItem(r, collections), ...saleFields(saleOf.get(String(r.address))) }));
    return { nft_items, ...(await sideObjects(ctx, nft_items.flatMap((i) => [i.address, i.owner_address, i.collection_address, i.real_owner ?? null]))) };
  },
});

/**
 * toncenter's sale fields of an item: `on_sale`, and while on sale the holding contract
 * (`sale_contract_address` for a fixed-price sale, `auction_contract_address` for an auction) and the
 * seller as `real_owner`; the optional ones are absent otherwise.
 */
function saleFields(sale: ContractRow | undefined): { on_sale: boolean; sale_contract_address?: string; auction_contract_address?: string; real_owner?: string } {
  if (!sale) return { on_sale: false };
  const contract = sale.type === 'getgems_sale' ? { sale_contract_address: String(sale.address) } : { auction_contract_address: String(sale.address) };
  const seller = String(sale.nft_owner_address ?? '');
  return { on_sale: true, ...contract, ...(seller === '' ? {} : { real_owner: seller }) };
}

export const nftTransfersEndpoint = defineEndpoint({
  path: '/nft/transfers',
  operationId: 'getNftTransfers',
  summary: 'NFT transfers',
  tag: 'nfts',
  params: {
    owner_address: ADDRS('Owners: the old or the new one'),
    address: optional(kinds.address, 'Alias of owner_address (one value) when owner_address is absent.'),
    item_address: ADDRS('NFT items'),
    collection_address: optional(kinds.address, 'Collection.'),
    direction: optional(transferDirection, 'With owner_address: in (received), out (sent) or both.'),
    start_utime: optional(kinds.utime, 'Transaction now >= start_utime; orders by now.'),
    end_utime: optional(kinds.utime, 'Transaction now <= end_utime; orders by now.'),
    start_lt: optional(kinds.uint64, 'Transaction lt >= start_lt.'),
    end_lt: optional(kinds.uint64, 'Transaction lt <= end_lt.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  },
  response: ref(NftTransfersResponse),
  async handle(ctx) {
    const p = ctx.params;
    const owners = p.owner_address ?? (p.address ? [p.address] : undefined);
    const direction = p.direction === 'both' ? undefined : p.direction;
    const rows = await readTokenEvents(ctx.store, ctx.scope, 'nft_transfers', {
      owners, direction, tokenAccounts: p.item_address, token: p.collection_address, startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt?.toString(), endLt: p.end_lt?.toString(),
    }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const nft_transfers = rows.map(toNftTransfer);
    return { nft_transfers, ...(await sideObjects(ctx, nft_transfers.flatMap((t) => [t.nft_address, t.nft_collection, t.old_owner, t.new_owner]))) };
  },
});
