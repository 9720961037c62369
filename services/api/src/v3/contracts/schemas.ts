import { arr, B, component, more, N, nullable, obj, oneOf, OPEN, ref, S } from '../../http/schema-kit.js';
import { AddressBook, Metadata } from '../schemas.js';

/** Response schemas of the DNS, multisig, vesting and NFT sale endpoints (docs/toncenter-v3.md §3). */
const strings = arr(S);

export const DNSRecord = component('DNSRecord', obj({ nft_item_address: S, nft_item_owner: nullable(S), domain: S, dns_next_resolver: nullable(S), dns_wallet: nullable(S), dns_site_adnl: nullable(S), dns_storage_bag_id: nullable(S) }));
export const OrderAction = component('OrderAction', obj({
  destination: nullable(S), value: nullable(S), body_raw: nullable(more(S, { description: 'base64 BoC of the message body' })), parsed: B, error: S,
  parsed_body: nullable(OPEN), parsed_body_type: S, send_mode: N,
}, ['error']));
export const MultisigOrder = component('MultisigOrder', obj({
  address: S, multisig_address: S, order_seqno: S, threshold: nullable(N), sent_for_execution: nullable(B), approvals_mask: nullable(S), approvals_num: nullable(N),
  expiration_date: nullable(N), order_boc: nullable(S), signers: strings, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S), actions: nullable(arr(ref(OrderAction))),
}, ['actions']));
export const Multisig = component('Multisig', obj({ address: S, next_order_seqno: S, threshold: N, signers: strings, proposers: strings, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S), orders: nullable(arr(ref(MultisigOrder))) }));
export const VestingInfo = component('VestingInfo', obj({ address: S, start_time: N, total_duration: N, unlock_period: N, cliff_duration: N, sender_address: S, owner_address: S, total_amount: S, whitelist: strings }));
export const DNSRecordsResponse = component('DNSRecordsResponse', obj({ records: arr(ref(DNSRecord)), address_book: ref(AddressBook) }));
export const MultisigWalletsResponse = component('MultisigWalletsResponse', obj({ multisigs: arr(ref(Multisig)), address_book: ref(AddressBook) }));
export const MultisigOrdersResponse = component('MultisigOrdersResponse', obj({ orders: arr(ref(MultisigOrder)), address_book: ref(AddressBook) }));
export const VestingResponse = component('VestingResponse', obj({ vesting_contracts: arr(ref(VestingInfo)), address_book: ref(AddressBook) }));
export const NFTSale = component('NFTSale', obj({
  type: oneOf(['getgems_sale', 'getgems_auction', 'telemint']), address: S, nft_address: S, nft_owner_address: nullable(S), marketplace_address: S, created_at: N,
  last_transaction_lt: S, code_hash: S, data_hash: S, details: more(OPEN, { description: 'getgems_sale: is_complete, full_price, marketplace_fee_address, marketplace_fee, royalty_address, royalty_amount; getgems_auction: end_flag, end_time, last_bid, last_member, min_step, mp_fee_*, royalty_fee_*, max_bid, min_bid, last_bid_at, is_canceled' }),
}));
export const NftSalesResponse = component('NftSalesResponse', obj({ nft_sales: arr(ref(NFTSale)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
