import type { AccountStateRecord, MessageRecord, TransactionRecord } from '@tonstream/records';
import { userFriendly } from './address.js';
import type { Stage } from './cursor.js';
import { cmpLt, type TraceRef } from './trace-links.js';

/** One transaction of an event, serialized once per stage on first use. */
export type EventTx = { account: string; lt: string; record: TransactionRecord; traceId: string; json: Partial<Record<Stage, string>> };

/**
 * An event as the fan-out holds it: what matching and serialization need, before per-client
 * filtering. `transactions` covers one trace's transactions of one masterchain block.
 */
export type BlockEvent =
  | { type: 'transactions'; norm: string; accounts: Set<string>; txs: EventTx[] }
  | { type: 'account_state_change'; account: string; state: AccountStateRecord };

/**
 * A masterchain block's events in their deterministic order: `transactions` events by the lowest lt
 * of the trace's transactions in the block (then trace hash), then `account_state_change` by account
 * and lt. This order only depends on the block's records, so every streamer agrees on it.
 */
export function blockEvents(transactions: TransactionRecord[], traces: Map<string, TraceRef>, states: AccountStateRecord[]): BlockEvent[] {
  const byTrace = new Map<string, EventTx[]>();
  for (const tx of transactions) {
    const ref = traces.get(tx.hash);
    if (!ref) continue;
    const list = byTrace.get(ref.norm) ?? [];
    list.push({ account: tx.account, lt: tx.lt, record: tx, traceId: ref.rootTx, json: {} });
    byTrace.set(ref.norm, list);
  }
  const txEvents = [...byTrace].map(([norm, txs]) => {
    txs.sort((a, b) => cmpLt(b.lt, a.lt) || a.account.localeCompare(b.account));
    return { type: 'transactions' as const, norm, accounts: new Set(txs.map((t) => t.account)), txs, minLt: txs[txs.length - 1].lt };
  });
  txEvents.sort((a, b) => cmpLt(a.minLt, b.minLt) || (a.norm < b.norm ? -1 : a.norm > b.norm ? 1 : 0));
  const stateEvents = [...states]
    .sort((a, b) => a.account.localeCompare(b.account) || cmpLt(a.last_trans_lt, b.last_trans_lt))
    .map((state) => ({ type: 'account_state_change' as const, account: state.account, state }));
  return [...txEvents.map(({ minLt: _m, ...e }) => e), ...stateEvents];
}

/** Addresses an event concerns: the subscription table is looked up by these. */
export function eventAddresses(e: BlockEvent): Iterable<string> {
  return e.type === 'transactions' ? e.accounts : [e.account];
}

function v3Message(m: MessageRecord) {
  const content = (c: { hash: string; body: string } | null) => c && { hash: c.hash, body: c.body, decoded: null };
  return {
    hash: m.hash,
    source: m.source,
    destination: m.destination,
    value: m.value,
    value_extra_currencies: m.value_extra_currencies,
    fwd_fee: m.fwd_fee,
    ihr_fee: m.ihr_fee,
    import_fee: m.import_fee,
    created_lt: m.created_lt,
    created_at: m.created_at,
    opcode: m.opcode,
    // Decoded opcodes and bodies come only with the pending path in toncenter (§6.1).
    decoded_opcode: null,
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    message_content: content(m.message_content),
    init_state: content(m.init_state),
    ...(m.hash_norm === undefined ? {} : { hash_norm: m.hash_norm }),
  };
}

const stateByHash = (hash: string) => ({ hash, balance: null, extra_currencies: null, account_status: null, frozen_hash: null, data_hash: null, code_hash: null });

/** The streamed v3 `Transaction` (§6.1): states carry only their hash, `emulated` false, the stage's finality. */
export function transactionJson(t: EventTx, stage: Stage): string {
  const cached = t.json[stage];
  if (cached !== undefined) return cached;
  const r = t.record;
  const json = JSON.stringify({
    account: r.account,
    hash: r.hash,
    lt: r.lt,
    now: r.now,
    mc_block_seqno: r.mc_block_seqno,
    trace_id: t.traceId,
    prev_trans_hash: r.prev_trans_hash,
    prev_trans_lt: r.prev_trans_lt,
    orig_status: r.orig_status,
    end_status: r.end_status,
    total_fees: r.total_fees,
    total_fees_extra_currencies: r.total_fees_extra_currencies,
    description: r.description,
    block_ref: r.block_ref,
    in_msg: r.in_msg && v3Message(r.in_msg),
    out_msgs: r.out_msgs.map(v3Message),
    account_state_before: stateByHash(r.account_state_hash_before),
    account_state_after: stateByHash(r.account_state_hash_after),
    emulated: false,
    finality: stage,
  });
  t.json[stage] = json;
  return json;
}

/** §6.4: balance as a decimal string, hashes base64, `extra_currencies` null, no BOCs. */
export function accountStateJson(s: AccountStateRecord) {
  return { hash: s.account_state_hash, balance: s.balance, extra_currencies: null, account_status: s.status, frozen_hash: s.frozen_hash, data_hash: s.data_hash, code_hash: s.code_hash };
}

/** What a client's view of an event depends on besides the event itself. */
export type View = { addresses: Set<string>; includeAddressBook: boolean; includeMetadata: boolean };

/**
 * The notification JSON for one client, or null when nothing in the event is for it. A `transactions`
 * event keeps only the transactions on subscribed accounts (§6.1); every distinct selection is built
 * once per event and stage and shared by all clients that see the same selection (`cache`).
 */
export function notificationJson(e: BlockEvent, stage: Stage, cursor: string, view: View, cache: Map<string, string>): string | null {
  if (e.type === 'account_state_change') {
    const key = 's';
    let json = cache.get(key);
    if (json === undefined) {
      json = JSON.stringify({ type: 'account_state_change', finality: stage, account: e.account, state: accountStateJson(e.state), cursor });
      cache.set(key, json);
    }
    return json;
  }
  const picked: number[] = [];
  e.txs.forEach((t, i) => view.addresses.has(t.account) && picked.push(i));
  if (picked.length === 0) return null;
  const key = `${picked.join(',')}|${view.includeAddressBook ? 1 : 0}${view.includeMetadata ? 1 : 0}`;
  let json = cache.get(key);
  if (json === undefined) {
    const txs = picked.map((i) => e.txs[i]);
    const head = `{"type":"transactions","finality":"${stage}","trace_external_hash_norm":${JSON.stringify(e.norm)},"transactions":[${txs.map((t) => transactionJson(t, stage)).join(',')}]`;
    const book = view.includeAddressBook ? `,"address_book":${JSON.stringify(addressBook(txs))}` : '';
    // No token metadata source in the streamer: an empty object, as toncenter sends when it has none (§6).
    const meta = view.includeMetadata ? ',"metadata":{}' : '';
    json = `${head}${book}${meta},"cursor":"${cursor}"}`;
    cache.set(key, json);
  }
  return json;
}

/** §6.1: the account, in_msg source and out_msgs destinations of the included transactions. */
function addressBook(txs: EventTx[]) {
  const book: Record<string, { user_friendly: string; domain: null; interfaces: string[] }> = {};
  const add = (raw: string | null, bounceable: boolean) => {
    if (raw === null || raw in book) return;
    book[raw] = { user_friendly: userFriendly(raw, bounceable), domain: null, interfaces: [] };
  };
  for (const t of txs) {
    add(t.account, t.record.end_status === 'active');
    add(t.record.in_msg?.source ?? null, true);
    for (const m of t.record.out_msgs) add(m.destination, true);
  }
  return book;
}
