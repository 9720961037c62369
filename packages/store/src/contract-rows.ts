import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import type { CONTRACT_TABLES } from './contract-schema.js';
import type { Row, Stored } from './rows.js';
import { tsvArray } from './tsv.js';

export type ContractTable = (typeof CONTRACT_TABLES)[number];

/**
 * Rows of the contract tables (migration 13) for a batch's account states: each state whose code
 * has the interface and whose data reads as its layout (its contract facts, `@tonstream/contracts`)
 * gives one version row.
 */
export function contractRows(accountStates: readonly Stored<AccountStateRecord>[]): Record<ContractTable, Row[]> {
  const rows: Record<ContractTable, Row[]> = { dns_entries: [], multisig_wallets: [], multisig_orders: [], vesting_contracts: [], nft_sales: [] };
  for (const { record: s } of accountStates) {
    if (s.status !== 'active' || s.code_hash === null) continue;
    const { dns_item: d, multisig: m, multisig_order: o, vesting: v, nft_sale: sale } = factsOf(s);
    const state = { code_hash: s.code_hash, data_hash: s.data_hash ?? '', last_trans_lt: s.last_trans_lt, mc_block_seqno: s.mc_block_seqno ?? 0 };
    if (d) {
      rows.dns_entries.push({
        address: s.account, collection_address: d.collection_address ?? '', owner_address: d.owner_address ?? '', item_index: d.index, domain: d.domain ?? '',
        dns_next_resolver: d.dns_next_resolver ?? '', dns_wallet: d.dns_wallet ?? '', dns_site_adnl: d.dns_site_adnl ?? '', dns_storage_bag_id: d.dns_storage_bag_id ?? '', ...state,
      });
    }
    if (m) rows.multisig_wallets.push({ address: s.account, next_order_seqno: m.next_order_seqno, threshold: m.threshold, signers: tsvArray(m.signers), proposers: tsvArray(m.proposers), ...state });
    if (o) {
      rows.multisig_orders.push({
        address: s.account, multisig_address: o.multisig_address, order_seqno: o.order_seqno, initialized: o.threshold === null ? 0 : 1, threshold: o.threshold ?? 0,
        sent_for_execution: o.sent_for_execution ? 1 : 0, signers: tsvArray(o.signers), approvals_mask: o.approvals_mask ?? '', approvals_num: o.approvals_num ?? 0,
        expiration_date: o.expiration_date ?? 0, order_boc: o.order_boc ?? '', ...state,
      });
    }
    if (v) rows.vesting_contracts.push({ address: s.account, ...v, whitelist: tsvArray(v.whitelist), ...state });
    if (sale) {
      rows.nft_sales.push({
        address: s.account, type: sale.type, nft_address: sale.nft_address, nft_owner_address: sale.nft_owner_address ?? '', marketplace_address: sale.marketplace_address,
        created_at: sale.created_at, details: JSON.stringify(sale.details), ...state,
      });
    }
  }
  return rows;
}
