import { readNftSales } from '@tonstream/store';
import { toNftSale } from './objects.js';
import { defineEndpoint } from '../endpoint.js';
import { sideObjects } from '../side-objects.js';
import * as kinds from '../../http/kinds.js';
import { requiredList } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { NftSalesResponse } from './schemas.js';

/** `/nft/sales` (docs/toncenter-v3.md §2.4): GetGems sale and auction contracts from `nft_sales` (migration 13). */
export const nftSalesEndpoint = defineEndpoint({
  path: '/nft/sales',
  operationId: 'getNftSales',
  summary: 'NFT sale and auction contracts by address',
  tag: 'nfts',
  params: {
    address: requiredList(kinds.address, 'Sale or auction contract addresses (repeat the key), 1 to 1000.', 'at least 1 address required'),
  },
  response: ref(NftSalesResponse),
  async handle(ctx) {
    const nft_sales = (await readNftSales(ctx.store, ctx.scope, ctx.params.address)).map(toNftSale);
    const addresses = nft_sales.flatMap((s) => [s.address, s.nft_address, s.nft_owner_address, s.marketplace_address]);
    return { nft_sales, ...(await sideObjects(ctx, addresses)) };
  },
});
