import { factsOf } from '@tonstream/contracts';
import type { AccountStateRecord, TransactionRow } from '@tonstream/records';
import type { Row, Stored } from './rows.js';
import type { TOKEN_TABLES } from './token-schema.js';
import { tsvArray } from './tsv.js';

export type TokenTable = (typeof TOKEN_TABLES)[number];

const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

/**
 * Token rows of a batch: each account state's code interfaces and the token state its data holds
 * (its contract facts, `@tonstream/contracts`), and the token events the decoder put on transactions.
 * A state whose data does not read as its interface's layout gives no state row.
 */
export function tokenRows(accountStates: readonly Stored<AccountStateRecord>[], transactions: readonly Stored<TransactionRow>[]): Record<TokenTable, Row[]> {
  const rows: Record<TokenTable, Row[]> = { contract_interfaces: [], jetton_wallets: [], jetton_masters: [], nft_collections: [], nft_items: [], jetton_transfers: [], jetton_burns: [], nft_transfers: [] };
  const codes = new Set<string>();
  for (const { record: s } of accountStates) {
    if (s.status !== 'active' || s.code_hash === null) continue;
    const facts = factsOf(s);
    if (!codes.has(s.code_hash) && (facts.methods !== null || facts.interfaces.length > 0)) {
      codes.add(s.code_hash);
      rows.contract_interfaces.push({ code_hash: s.code_hash, interfaces: tsvArray(facts.interfaces), methods: tsvArray(facts.methods ?? []) });
    }
    const state = { code_hash: s.code_hash, data_hash: s.data_hash ?? '', last_trans_lt: s.last_trans_lt, mc_block_seqno: s.mc_block_seqno ?? 0 };
    const { jetton_wallet: w, jetton_master: m, nft_collection: c, nft_item: i } = facts;
    if (w) rows.jetton_wallets.push({ address: s.account, jetton: w.jetton, owner: w.owner, balance: w.balance, ...state });
    if (m) rows.jetton_masters.push({ address: s.account, total_supply: m.total_supply, mintable: m.mintable ? 1 : 0, admin_address: m.admin_address ?? '', jetton_content: json(m.jetton_content), jetton_wallet_code_hash: m.jetton_wallet_code_hash, ...state });
    if (c) rows.nft_collections.push({ address: s.account, owner_address: c.owner_address ?? '', next_item_index: c.next_item_index, collection_content: json(c.collection_content), common_content: c.common_content ?? '', ...state });
    if (i) rows.nft_items.push({ address: s.account, init: i.init ? 1 : 0, item_index: i.index, collection_address: i.collection_address ?? '', owner_address: i.owner_address ?? '', content: json(i.content), individual_content: i.individual_content ?? '', ...state });
  }
  for (const { record: t } of transactions) {
    if (!t.token_events) continue;
    const tx = { transaction_hash: t.hash, transaction_lt: t.lt, transaction_now: t.now, transaction_aborted: t.description.aborted ? 1 : 0, mc_block_seqno: t.mc_block_seqno ?? 0 };
    for (const e of t.token_events) {
      if (e.type === 'jetton_transfer') {
        rows.jetton_transfers.push({ ...tx, query_id: e.query_id, amount: e.amount, source: e.source, destination: e.destination ?? '', source_wallet: e.source_wallet, jetton_master: e.jetton_master, response_destination: e.response_destination ?? '', custom_payload: e.custom_payload ?? '', forward_ton_amount: e.forward_ton_amount, forward_payload: e.forward_payload ?? '' });
      } else if (e.type === 'jetton_burn') {
        rows.jetton_burns.push({ ...tx, query_id: e.query_id, amount: e.amount, owner: e.owner, jetton_wallet: e.jetton_wallet, jetton_master: e.jetton_master, response_destination: e.response_destination ?? '', custom_payload: e.custom_payload ?? '' });
      } else {
        rows.nft_transfers.push({ ...tx, query_id: e.query_id, nft_address: e.nft_address, nft_collection: e.nft_collection ?? '', old_owner: e.old_owner, new_owner: e.new_owner ?? '', response_destination: e.response_destination ?? '', custom_payload: e.custom_payload ?? '', forward_amount: e.forward_amount, forward_payload: e.forward_payload ?? '' });
      }
    }
  }
  return rows;
}
