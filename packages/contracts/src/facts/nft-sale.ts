import { NFT_SALE_INTERFACES } from '../interfaces/detect.js';
import { type NftSaleData, readNftSaleData } from '../interfaces/sale-data.js';
import type { Standard } from './standard.js';

/** An NFT sale or auction (GetGems fixed price and auction, by any of their interface names). */
export const nftSale: Standard<NftSaleData> = {
  has: (code) => code.interfaces.some((i) => NFT_SALE_INTERFACES.has(i)),
  read: (data) => (data ? readNftSaleData(data) : null),
};
