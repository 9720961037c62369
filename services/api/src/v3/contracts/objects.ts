import { readOrderActions } from '@tonstream/contracts';
import type { ContractRow } from '@tonstream/store';

/**
 * Contract table rows (migration 13) -> toncenter's objects (docs/toncenter-v3.md §3 DNS, Multisig,
 * Vesting, NFTSale). Rows keep '' for a null address; amounts and seqnos stay decimal strings.
 */
const s = (v: ContractRow[string] | undefined) => String(v ?? '');
const orNull = (v: ContractRow[string] | undefined) => (v === undefined || v === '' ? null : String(v));
const list = (v: ContractRow[string] | undefined) => (Array.isArray(v) ? v : []);

export function toDnsRecord(r: ContractRow) {
  return {
    nft_item_address: s(r.address), nft_item_owner: orNull(r.owner_address), domain: s(r.domain), dns_next_resolver: orNull(r.dns_next_resolver),
    dns_wallet: orNull(r.dns_wallet), dns_site_adnl: orNull(r.dns_site_adnl), dns_storage_bag_id: orNull(r.dns_storage_bag_id),
  };
}

export function toMultisigOrder(r: ContractRow, parseActions: boolean) {
  const initialized = Number(r.initialized) === 1;
  const orderBoc = orNull(r.order_boc);
  return {
    address: s(r.address), multisig_address: s(r.multisig_address), order_seqno: s(r.order_seqno),
    threshold: initialized ? Number(r.threshold) : null, sent_for_execution: initialized ? Number(r.sent_for_execution) === 1 : null,
    approvals_mask: initialized ? s(r.approvals_mask) : null, approvals_num: initialized ? Number(r.approvals_num) : null,
    expiration_date: initialized ? Number(r.expiration_date) : null, order_boc: orderBoc, signers: list(r.signers),
    last_transaction_lt: s(r.last_trans_lt), code_hash: orNull(r.code_hash), data_hash: orNull(r.data_hash),
    ...(parseActions ? { actions: orderBoc === null ? null : readOrderActions(orderBoc) } : {}),
  };
}
export type MultisigOrderObject = ReturnType<typeof toMultisigOrder>;

export function toMultisig(r: ContractRow, orders: MultisigOrderObject[] | null) {
  return {
    address: s(r.address), next_order_seqno: s(r.next_order_seqno), threshold: Number(r.threshold), signers: list(r.signers), proposers: list(r.proposers),
    last_transaction_lt: s(r.last_trans_lt), code_hash: orNull(r.code_hash), data_hash: orNull(r.data_hash), orders: orders && orders.length > 0 ? orders : null,
  };
}

export function toVesting(r: ContractRow) {
  return {
    address: s(r.address), start_time: Number(r.start_time), total_duration: Number(r.total_duration), unlock_period: Number(r.unlock_period), cliff_duration: Number(r.cliff_duration),
    sender_address: s(r.sender_address), owner_address: s(r.owner_address), total_amount: s(r.total_amount), whitelist: list(r.whitelist),
  };
}

export function toNftSale(r: ContractRow) {
  return {
    type: s(r.type), address: s(r.address), nft_address: s(r.nft_address), nft_owner_address: orNull(r.nft_owner_address), marketplace_address: s(r.marketplace_address),
    created_at: Number(r.created_at), last_transaction_lt: s(r.last_trans_lt), code_hash: s(r.code_hash), data_hash: s(r.data_hash),
    details: JSON.parse(s(r.details)) as Record<string, unknown>,
  };
}
