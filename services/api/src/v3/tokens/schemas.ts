import { arr, B, component, dict, N, nullable, obj, ref, S } from '../../http/schema-kit.js';
import { AddressBook, Metadata } from '../schemas.js';

/** Response schemas of the Jetton and NFT endpoints (docs/toncenter-v3.md §3). */
const content = nullable(dict(S));
const tx = { transaction_hash: S, transaction_lt: S, transaction_now: N, transaction_aborted: B };
const addressBook = ref(AddressBook);
const metadata = ref(Metadata);

export const JettonMaster = component('JettonMaster', obj({ address: S, total_supply: S, mintable: B, admin_address: nullable(S), jetton_content: content, jetton_wallet_code_hash: S, code_hash: S, data_hash: S, last_transaction_lt: S }));
export const JettonWallet = component('JettonWallet', obj({ address: S, balance: S, owner: S, jetton: S, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S) }));
export const JettonTransfer = component('JettonTransfer', obj({ query_id: S, source: nullable(S), destination: nullable(S), amount: S, source_wallet: S, jetton_master: S, ...tx, response_destination: nullable(S), custom_payload: nullable(S), forward_ton_amount: nullable(S), forward_payload: nullable(S) }));
export const JettonBurn = component('JettonBurn', obj({ query_id: S, owner: S, jetton_wallet: S, jetton_master: S, ...tx, amount: S, response_destination: nullable(S), custom_payload: nullable(S) }));
export const NFTCollection = component('NFTCollection', obj({ address: S, owner_address: nullable(S), last_transaction_lt: S, next_item_index: S, collection_content: content, data_hash: S, code_hash: S }));
export const NFTItem = component('NFTItem', obj({ address: S, init: B, index: S, collection_address: nullable(S), owner_address: nullable(S), content, last_transaction_lt: S, code_hash: S, data_hash: S, collection: nullable(ref(NFTCollection)), on_sale: B,
  sale_contract_address: S, auction_contract_address: S, real_owner: S }, ['sale_contract_address', 'auction_contract_address', 'real_owner']));
export const NFTTransfer = component('NFTTransfer', obj({ query_id: S, nft_address: S, nft_collection: nullable(S), ...tx, old_owner: nullable(S), new_owner: nullable(S), response_destination: nullable(S), custom_payload: nullable(S), forward_amount: nullable(S), forward_payload: nullable(S) }));
export const JettonMastersResponse = component('JettonMastersResponse', obj({ jetton_masters: arr(ref(JettonMaster)), address_book: addressBook, metadata }));
export const JettonWalletsResponse = component('JettonWalletsResponse', obj({ jetton_wallets: arr(ref(JettonWallet)), address_book: addressBook, metadata }));
export const JettonTransfersResponse = component('JettonTransfersResponse', obj({ jetton_transfers: arr(ref(JettonTransfer)), address_book: addressBook, metadata }));
export const JettonBurnsResponse = component('JettonBurnsResponse', obj({ jetton_burns: arr(ref(JettonBurn)), address_book: addressBook, metadata }));
export const NftCollectionsResponse = component('NftCollectionsResponse', obj({ nft_collections: arr(ref(NFTCollection)), address_book: addressBook, metadata }));
export const NftItemsResponse = component('NftItemsResponse', obj({ nft_items: arr(ref(NFTItem)), address_book: addressBook, metadata }));
export const NftTransfersResponse = component('NftTransfersResponse', obj({ nft_transfers: arr(ref(NFTTransfer)), address_book: addressBook, metadata }));
