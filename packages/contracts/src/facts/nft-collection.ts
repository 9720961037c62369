import { readNftCollectionData } from '../interfaces/token-data.js';
import { byInterface } from './standard.js';

/** TEP-62 NFT collection: owner, next item index, content. */
export const nftCollection = byInterface('nft_collection', readNftCollectionData);
