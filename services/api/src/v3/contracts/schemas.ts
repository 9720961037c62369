import type { JsonSchema } from '../../http/kinds.js';
import { B, list, N, nullable, obj, ref, S } from '../../http/schema-kit.js';

/** Response schemas of the DNS, multisig, vesting and NFT sale endpoints (toncenter-v3.md §3), merged into SCHEMAS. */
const strings: JsonSchema = { type: 'array', items: S };

export const CONTRACT_SCHEMAS: Record<string, JsonSchema> = {
  DNSRecord: obj({ nft_item_address: S, nft_item_owner: nullable(S), domain: S, dns_next_resolver: nullable(S), dns_wallet: nullable(S), dns_site_adnl: nullable(S), dns_storage_bag_id: nullable(S) }),
  OrderAction: obj({
    destination: nullable(S), value: nullable(S), body_raw: nullable({ ...S, description: 'base64 BoC of the message body' }), parsed: B, error: S,
    parsed_body: nullable({ type: 'object' }), parsed_body_type: S, send_mode: N,
  }, ['error']),
  MultisigOrder: obj({
    address: S, multisig_address: S, order_seqno: S, threshold: nullable(N), sent_for_execution: nullable(B), approvals_mask: nullable(S), approvals_num: nullable(N),
    expiration_date: nullable(N), order_boc: nullable(S), signers: strings, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S), actions: nullable(list('OrderAction')),
  }, ['actions']),
  Multisig: obj({ address: S, next_order_seqno: S, threshold: N, signers: strings, proposers: strings, last_transaction_lt: S, code_hash: nullable(S), data_hash: nullable(S), orders: nullable(list('MultisigOrder')) }),
  VestingInfo: obj({ address: S, start_time: N, total_duration: N, unlock_period: N, cliff_duration: N, sender_address: S, owner_address: S, total_amount: S, whitelist: strings }),
  NFTSale: obj({
    type: { ...S, enum: ['getgems_sale', 'getgems_auction', 'telemint'] }, address: S, nft_address: S, nft_owner_address: nullable(S), marketplace_address: S, created_at: N,
    last_transaction_lt: S, code_hash: S, data_hash: S, details: { type: 'object', description: 'getgems_sale: is_complete, full_price, marketplace_fee_address, marketplace_fee, royalty_address, royalty_amount; getgems_auction: end_flag, end_time, last_bid, last_member, min_step, mp_fee_*, royalty_fee_*, max_bid, min_bid, last_bid_at, is_canceled' },
  }),
  DNSRecordsResponse: obj({ records: list('DNSRecord'), address_book: ref('AddressBook') }),
  MultisigWalletsResponse: obj({ multisigs: list('Multisig'), address_book: ref('AddressBook') }),
  MultisigOrdersResponse: obj({ orders: list('MultisigOrder'), address_book: ref('AddressBook') }),
  VestingResponse: obj({ vesting_contracts: list('VestingInfo'), address_book: ref('AddressBook') }),
  NftSalesResponse: obj({ nft_sales: list('NFTSale'), address_book: ref('AddressBook'), metadata: ref('Metadata') }),
};
