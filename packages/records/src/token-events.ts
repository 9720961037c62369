import { arrayOf, base64, type Check, decimal, literal, nullable, object, pattern, variants } from './check.js';

/**
 * What a transaction did to a token (TEP-74 jettons, TEP-62 NFTs), derived by the decoder from the
 * transaction's inbound body and the block's state of the account that ran it, and carried on the
 * transaction record (`token_events`) so it is stored in the same batch as its transaction. Amounts
 * and query ids are decimal strings (Coins reach 2^120), addresses raw, payloads base64 BoCs.
 * The transaction gives hash, lt, now and aborted.
 */
export type JettonTransferEvent = {
  type: 'jetton_transfer';
  query_id: string;
  amount: string;
  /** The sender's owner: the inbound message's source. */
  source: string;
  /** The receiver's owner, from the body. */
  destination: string | null;
  source_wallet: string;
  jetton_master: string;
  response_destination: string | null;
  custom_payload: string | null;
  forward_ton_amount: string;
  forward_payload: string | null;
};

export type JettonBurnEvent = {
  type: 'jetton_burn';
  query_id: string;
  amount: string;
  owner: string;
  jetton_wallet: string;
  jetton_master: string;
  response_destination: string | null;
  custom_payload: string | null;
};

export type NftTransferEvent = {
  type: 'nft_transfer';
  query_id: string;
  nft_address: string;
  nft_collection: string | null;
  old_owner: string;
  new_owner: string | null;
  response_destination: string | null;
  custom_payload: string | null;
  forward_amount: string;
  forward_payload: string | null;
};

export type TokenEvent = JettonTransferEvent | JettonBurnEvent | NftTransferEvent;

const address = pattern(/^-?[0-9]{1,10}:[0-9A-F]{64}$/, 'a raw address like 0:ABCD…');
const boc = nullable(base64());
const amount = decimal(128);
const u64 = decimal(64);

export const tokenEvent: Check = variants('type', {
  jetton_transfer: object({
    type: literal('jetton_transfer'), query_id: u64, amount, source: address, destination: nullable(address), source_wallet: address,
    jetton_master: address, response_destination: nullable(address), custom_payload: boc, forward_ton_amount: amount, forward_payload: boc,
  }),
  jetton_burn: object({
    type: literal('jetton_burn'), query_id: u64, amount, owner: address, jetton_wallet: address, jetton_master: address,
    response_destination: nullable(address), custom_payload: boc,
  }),
  nft_transfer: object({
    type: literal('nft_transfer'), query_id: u64, nft_address: address, nft_collection: nullable(address), old_owner: address,
    new_owner: nullable(address), response_destination: nullable(address), custom_payload: boc, forward_amount: amount, forward_payload: boc,
  }),
});

/** A transaction handles one inbound message: one event at most, a list to leave room for more. */
export const tokenEvents: Check = arrayOf(tokenEvent, 4);
