import type { TokenRow } from '@tonstream/store';

/**
 * Token table rows -> toncenter's objects (docs/toncenter-v3.md §3 Jettons, NFTs). Rows keep '' for a
 * null address or payload and JSON text for content; amounts stay decimal strings.
 */
const s = (v: string | number | undefined) => String(v ?? '');
const orNull = (v: string | number | undefined) => (v === undefined || v === '' ? null : String(v));
const content = (v: string | number | undefined) => (v === undefined || v === '' ? null : (JSON.parse(String(v)) as Record<string, string>));

export function toJettonMaster(r: TokenRow) {
  return {
    address: s(r.address), total_supply: s(r.total_supply), mintable: Number(r.mintable) === 1, admin_address: orNull(r.admin_address),
    jetton_content: content(r.jetton_content), jetton_wallet_code_hash: s(r.jetton_wallet_code_hash), code_hash: s(r.code_hash), data_hash: s(r.data_hash),
    last_transaction_lt: s(r.last_trans_lt),
  };
}

export function toJettonWallet(r: TokenRow) {
  return {
    address: s(r.address), balance: s(r.balance), owner: s(r.owner), jetton: s(r.jetton), last_transaction_lt: s(r.last_trans_lt),
    code_hash: orNull(r.code_hash), data_hash: orNull(r.data_hash),
  };
}

const tx = (r: TokenRow) => ({ transaction_hash: s(r.transaction_hash), transaction_lt: s(r.transaction_lt), transaction_now: Number(r.transaction_now), transaction_aborted: Number(r.transaction_aborted) === 1 });

export function toJettonTransfer(r: TokenRow) {
  return {
    query_id: s(r.query_id), source: orNull(r.source), destination: orNull(r.destination), amount: s(r.amount), source_wallet: s(r.source_wallet), jetton_master: s(r.jetton_master),
    ...tx(r), response_destination: orNull(r.response_destination), custom_payload: orNull(r.custom_payload), forward_ton_amount: orNull(r.forward_ton_amount), forward_payload: orNull(r.forward_payload),
  };
}

export function toJettonBurn(r: TokenRow) {
  return {
    query_id: s(r.query_id), owner: s(r.owner), jetton_wallet: s(r.jetton_wallet), jetton_master: s(r.jetton_master), ...tx(r), amount: s(r.amount),
    response_destination: orNull(r.response_destination), custom_payload: orNull(r.custom_payload),
  };
}

export function toNftCollection(r: TokenRow) {
  return {
    address: s(r.address), owner_address: orNull(r.owner_address), last_transaction_lt: s(r.last_trans_lt), next_item_index: s(r.next_item_index),
    collection_content: content(r.collection_content), data_hash: s(r.data_hash), code_hash: s(r.code_hash),
  };
}
export type NftCollectionObject = ReturnType<typeof toNftCollection>;

/** An item's content: its own TEP-64 content, or its individual part after the collection's common content. */
export function toNftItem(r: TokenRow, collections: Map<string, { object: NftCollectionObject; common: string }>) {
  const collection = collections.get(s(r.collection_address));
  const individual = s(r.individual_content);
  const itemContent = content(r.content) ?? (individual === '' ? null : { uri: (collection?.common ?? '') + individual });
  return {
    address: s(r.address), init: Number(r.init) === 1, index: s(r.item_index), collection_address: orNull(r.collection_address), owner_address: orNull(r.owner_address),
    content: itemContent, last_transaction_lt: s(r.last_trans_lt), code_hash: s(r.code_hash), data_hash: s(r.data_hash), collection: collection?.object ?? null, on_sale: false,
  };
}

export function toNftTransfer(r: TokenRow) {
  return {
    query_id: s(r.query_id), nft_address: s(r.nft_address), nft_collection: orNull(r.nft_collection), ...tx(r), old_owner: orNull(r.old_owner), new_owner: orNull(r.new_owner),
    response_destination: orNull(r.response_destination), custom_payload: orNull(r.custom_payload), forward_amount: orNull(r.forward_amount), forward_payload: orNull(r.forward_payload),
  };
}
