import { readNftItemData } from '../interfaces/token-data.js';
import { byInterface } from './standard.js';

/** TEP-62 NFT item: index, collection, owner, content. */
export const nftItem = byInterface('nft_item', readNftItemData);
