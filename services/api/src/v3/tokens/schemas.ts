import type { JsonSchema } from '../../http/kinds.js';
import { B, N, nullable, obj, ref, S } from '../../http/schema-kit.js';

/** Response schemas of the Jetton and NFT endpoints (toncenter-v3.md §3), merged into SCHEMAS. */
const content = nullable({ type: 'object', additionalProperties: S });
const tx = { transaction_hash: S, transaction_lt: S, transaction_now: N, transaction_aborted: B };
const response = (key: string, item: string) => obj({ [key]: { type: 'array', items: ref(item) }, address_book: ref('AddressBook'), metadata: ref('Metadata') });

export const TOKEN_SCHEMAS: Record<string, JsonSchema> = {
  JettonMaster: obj({ address: S, total_supply: S, mintable: B, admin_address: nullable(S), jetton_content: content, jetton_wallet_code_hash: S, code_hash: S, data_hash: S, last_transaction_lt: S }),
  JettonWallet: obj({ address: S, balance: S, owner: S, jetton: S, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S) }),
  JettonTransfer: obj({ query_id: S, source: nullable(S), destination: nullable(S), amount: S, source_wallet: S, jetton_master: S, ...tx, response_destination: nullable(S), custom_payload: nullable(S), forward_ton_amount: nullable(S), forward_payload: nullable(S) }),
  JettonBurn: obj({ query_id: S, owner: S, jetton_wallet: S, jetton_master: S, ...tx, amount: S, response_destination: nullable(S), custom_payload: nullable(S) }),
  NFTCollection: obj({ address: S, owner_address: nullable(S), last_transaction_lt: S, next_item_index: S, collection_content: content, data_hash: S, code_hash: S }),
  NFTItem: obj({ address: S, init: B, index: S, collection_address: nullable(S), owner_address: nullable(S), content, last_transaction_lt: S, code_hash: S, data_hash: S, collection: nullable(ref('NFTCollection')), on_sale: B,
    sale_contract_address: S, auction_contract_address: S, real_owner: S }, ['sale_contract_address', 'auction_contract_address', 'real_owner']),
  NFTTransfer: obj({ query_id: S, nft_address: S, nft_collection: nullable(S), ...tx, old_owner: nullable(S), new_owner: nullable(S), response_destination: nullable(S), custom_payload: nullable(S), forward_amount: nullable(S), forward_payload: nullable(S) }),
  JettonMastersResponse: response('jetton_masters', 'JettonMaster'),
  JettonWalletsResponse: response('jetton_wallets', 'JettonWallet'),
  JettonTransfersResponse: response('jetton_transfers', 'JettonTransfer'),
  JettonBurnsResponse: response('jetton_burns', 'JettonBurn'),
  NftCollectionsResponse: response('nft_collections', 'NFTCollection'),
  NftItemsResponse: response('nft_items', 'NFTItem'),
  NftTransfersResponse: response('nft_transfers', 'NFTTransfer'),
};
