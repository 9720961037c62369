import { type AccountStateRecord, type MessageRecord, type TransactionRecord, wireDescription } from '@tonstream/records';
import { actionAddresses, type ActionRecord } from '@tonstream/traces';
import { actionJson, eventActions, isActionSelected, type ActionFilter, type EventAction } from './action-json.js';
import { userFriendly } from './address.js';
import type { Finality } from './subscription.js';
import { cmpLt, type TraceRef } from './trace-links.js';

/** One transaction of an event, serialized once per finality on first use. `traceId` null: the root is emulated (pending). */
export type EventTx = { account: string; lt: string; record: TransactionRecord; traceId: string | null; json: Partial<Record<Finality, string>> };

/** One node of a trace tree as the tracer and the emulator list them (parent links, out message count). */
export type TraceNode = { tx_hash: string; in_msg_hash: string | null; parent: string | null; out_msgs: number };

/** A Jetton wallet's state as `jettons_change` reports it (§6.5). */
export type JettonWalletState = { owner: string; jetton: string; balance: string };

/**
 * What the store said of an event's addresses when it was emitted (the streamer looks it up for the
 * clients that asked for `address_book` / `metadata`): each address's book `domain` and `interfaces`,
 * and the v3 `metadata` entries each address brings (its own, a Jetton wallet's master's with it).
 * An address it does not list shows its user-friendly form only and brings no metadata.
 */
export type AddressExtras = {
  /** `bounceable`: the form the v3 address book shows (by the account's code); absent: the event's own guess. */
  book: ReadonlyMap<string, { domain: string | null; interfaces: readonly string[]; bounceable?: boolean }>;
  metadata: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
};

/**
 * An event as the fan-out holds it: what matching and serialization need, before per-client
 * filtering. `transactions` covers one trace's transactions of one masterchain block (or of one
 * emulation); `actions` and `trace` one whole trace, once it is complete (or emulated). `extras`:
 * set by the streamer before emitting, when some client asked for them.
 */
export type BlockEvent = (
  | { type: 'transactions'; norm: string; accounts: Set<string>; txs: EventTx[] }
  | { type: 'actions'; norm: string; accounts: Set<string>; actions: EventAction[] }
  | { type: 'trace'; norm: string; externalHash: string | null; nodes: TraceNode[]; txs: EventTx[]; actions: EventAction[] }
  | { type: 'account_state_change'; account: string; state: AccountStateRecord }
  | { type: 'jettons_change'; account: string; wallet: JettonWalletState; state: AccountStateRecord }
) & { extras?: AddressExtras };

/** A trace's events besides its transactions: `actions` then `trace` (§7: within one classification actions come first). */
export function traceEvents(norm: string, externalHash: string | null, nodes: TraceNode[], txs: EventTx[], actions: readonly ActionRecord[]): BlockEvent[] {
  const listed = eventActions(actions);
  const out: BlockEvent[] = [];
  if (listed.length > 0) out.push({ type: 'actions', norm, accounts: new Set(listed.flatMap((a) => a.record.accounts)), actions: listed });
  out.push({ type: 'trace', norm, externalHash, nodes, txs, actions: listed });
  return out;
}

/** A trace's transactions as one `transactions` event, lt descending (§6.1). */
export function transactionsEvent(norm: string, txs: EventTx[]): BlockEvent {
  txs.sort((a, b) => cmpLt(b.lt, a.lt) || a.account.localeCompare(b.account));
  return { type: 'transactions', norm, accounts: new Set(txs.map((t) => t.account)), txs };
}

/**
 * A masterchain block's events in their deterministic order: `transactions` events by the lowest lt
 * of the trace's transactions in the block (then trace hash), then the `actions` and `trace` events
 * of the traces the block completed (in the order given), then `account_state_change` by account and
 * lt, each Jetton wallet's followed by its `jettons_change`. This order only depends on the block's
 * records (and the tracer's output for its traces), so every streamer agrees on it.
 */
export function blockEvents(
  transactions: TransactionRecord[],
  traces: Map<string, TraceRef>,
  states: AccountStateRecord[],
  completed: BlockEvent[] = [],
  jettonOf: (s: AccountStateRecord) => JettonWalletState | undefined = () => undefined,
): BlockEvent[] {
  const byTrace = new Map<string, EventTx[]>();
  for (const tx of transactions) {
    const ref = traces.get(tx.hash);
    if (!ref) continue;
    const list = byTrace.get(ref.norm) ?? [];
    list.push({ account: tx.account, lt: tx.lt, record: retainedTransaction(tx), traceId: ref.rootTx, json: {} });
    byTrace.set(ref.norm, list);
  }
  const txEvents = [...byTrace].map(([norm, txs]) => ({ event: transactionsEvent(norm, txs), minLt: txs[txs.length - 1].lt, norm }));
  txEvents.sort((a, b) => cmpLt(a.minLt, b.minLt) || (a.norm < b.norm ? -1 : a.norm > b.norm ? 1 : 0));
  const stateEvents: BlockEvent[] = [];
  for (const full of [...states].sort((a, b) => a.account.localeCompare(b.account) || cmpLt(a.last_trans_lt, b.last_trans_lt))) {
    const state = retainedState(full);
    stateEvents.push({ type: 'account_state_change', account: state.account, state });
    const wallet = jettonOf(full);
    if (wallet) stateEvents.push({ type: 'jettons_change', account: state.account, wallet, state });
  }
  return [...txEvents.map((e) => e.event), ...completed, ...stateEvents];
}

/**
 * What an event keeps of a transaction: no notification carries its BoC (or the token events the
 * pipeline attached), and events stay in the resume window for a long time.
 */
function retainedTransaction(tx: TransactionRecord & { token_events?: unknown }): TransactionRecord {
  if (tx.boc === undefined && tx.token_events === undefined) return tx;
  const { boc: _boc, token_events: _tokenEvents, ...kept } = tx;
  return kept;
}

/** What an event keeps of an account state: notifications carry hashes only, never the code and data BoCs nor the contract facts. */
function retainedState(s: AccountStateRecord): AccountStateRecord {
  if (s.code_boc === null && s.data_boc === null && s.contract === undefined) return s;
  const { contract: _contract, ...kept } = s;
  return { ...kept, code_boc: null, data_boc: null };
}

/**
 * Forgets the per-transaction and per-action JSON an event keeps while its notifications are built
 * for many views at once: the notifications themselves are cached per view by the caller, and the
 * parts would otherwise stay as long as the event does.
 */
export function forgetPartsJson(e: BlockEvent): void {
  if (e.type === 'transactions' || e.type === 'trace') for (const t of e.txs) t.json = {};
  if (e.type === 'actions' || e.type === 'trace') for (const a of e.actions) a.json = {};
}

/** Addresses an event concerns: the subscription table is looked up by these (a `trace` event by its hash instead). */
export function eventAddresses(e: BlockEvent): Iterable<string> {
  switch (e.type) {
    case 'transactions':
    case 'actions':
      return e.accounts;
    case 'trace':
      return [];
    case 'account_state_change':
      return [e.account];
    case 'jettons_change':
      return [e.account, e.wallet.owner];
  }
}

/** The trace an event belongs to, for the per-connection invalidation memory (§8); null for state events. */
export function eventTrace(e: BlockEvent): string | null {
  return e.type === 'transactions' || e.type === 'actions' || e.type === 'trace' ? e.norm : null;
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
    extra_flags: m.extra_flags ?? null,
    created_lt: m.created_lt,
    created_at: m.created_at,
    opcode: m.opcode,
    // Decoded opcodes and bodies come only with the pending path in toncenter (§6.1).
    decoded_opcode: null,
    ihr_disabled: m.ihr_disabled,
    bounce: m.bounce,
    bounced: m.bounced,
    import_fee: m.import_fee,
    message_content: content(m.message_content),
    init_state: content(m.init_state),
    ...(m.hash_norm === undefined ? {} : { hash_norm: m.hash_norm }),
  };
}

const stateByHash = (hash: string) => ({ hash, balance: null, extra_currencies: null, account_status: null, frozen_hash: null, data_hash: null, code_hash: null });

/** The streamed v3 `Transaction` (§6.1): states carry only their hash; `emulated` and `finality` as the event's; no `trace_id` while the root is emulated. */
function transactionObject(t: EventTx, finality: Finality): Record<string, unknown> {
  const r = t.record;
  return {
    account: r.account,
    hash: r.hash,
    lt: r.lt,
    now: r.now,
    mc_block_seqno: r.mc_block_seqno,
    ...(t.traceId === null ? {} : { trace_id: t.traceId }),
    prev_trans_hash: r.prev_trans_hash,
    prev_trans_lt: r.prev_trans_lt,
    orig_status: r.orig_status,
    end_status: r.end_status,
    total_fees: r.total_fees,
    total_fees_extra_currencies: r.total_fees_extra_currencies,
    description: wireDescription(r.description),
    block_ref: r.block_ref,
    in_msg: r.in_msg && v3Message(r.in_msg),
    out_msgs: r.out_msgs.map(v3Message),
    account_state_before: stateByHash(r.account_state_hash_before),
    account_state_after: stateByHash(r.account_state_hash_after),
    emulated: finality === 'pending',
    finality,
  };
}

export function transactionJson(t: EventTx, finality: Finality): string {
  const cached = t.json[finality];
  if (cached !== undefined) return cached;
  const json = JSON.stringify(transactionObject(t, finality));
  t.json[finality] = json;
  return json;
}

/** §6.4: balance as a decimal string, hashes base64, `extra_currencies` null, no BOCs. */
export function accountStateJson(s: AccountStateRecord) {
  return { hash: s.account_state_hash, balance: s.balance, extra_currencies: null, account_status: s.status, frozen_hash: s.frozen_hash, data_hash: s.data_hash, code_hash: s.code_hash };
}

/** What a client's view of an event depends on besides the event itself. */
export type View = { addresses: ReadonlySet<string>; includeAddressBook: boolean; includeMetadata: boolean } & ActionFilter;

type Book = Record<string, { user_friendly: string; domain: string | null; interfaces: readonly string[] }>;

function bookOf(entries: Iterable<[string | null, boolean]>, known: AddressExtras | undefined): Book {
  const book: Book = {};
  for (const [raw, bounceable] of entries) {
    if (raw === null || raw in book) continue;
    const facts = known?.book.get(raw);
    book[raw] = { user_friendly: userFriendly(raw, facts?.bounceable ?? bounceable), domain: facts?.domain ?? null, interfaces: facts?.interfaces ?? [] };
  }
  return book;
}

function metadataOf(addresses: Iterable<string | null>, known: AddressExtras | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (known) for (const a of addresses) if (a !== null) Object.assign(out, known.metadata.get(a));
  return out;
}

/** §6.1: the account, in_msg source and out_msgs destinations of the transactions. */
function* txAddresses(txs: EventTx[]): Iterable<[string | null, boolean]> {
  for (const t of txs) {
    yield [t.account, t.record.end_status === 'active'];
    yield [t.record.in_msg?.source ?? null, true];
    for (const m of t.record.out_msgs) yield [m.destination, true];
  }
}

function* actionBookAddresses(actions: EventAction[]): Iterable<[string, boolean]> {
  for (const a of actions) for (const raw of actionAddresses(a.record)) yield [raw, true];
}

const rawOf = (entries: Iterable<[string | null, boolean]>): Iterable<string | null> => [...entries].map(([raw]) => raw);

/**
 * The addresses whose facts an event's `address_book` and `metadata` may show, over every view (what
 * the streamer looks up): §6 per type; `account_state_change` carries neither.
 */
export function extrasAddresses(e: BlockEvent): Set<string> {
  const all = (entries: Iterable<string | null>) => new Set([...entries].filter((a): a is string => a !== null));
  switch (e.type) {
    case 'transactions':
      return all(rawOf(txAddresses(e.txs)));
    case 'actions':
      return all(rawOf(actionBookAddresses(e.actions)));
    case 'trace':
      return all([...rawOf(txAddresses(e.txs)), ...rawOf(actionBookAddresses(e.actions))]);
    case 'account_state_change':
      return new Set();
    case 'jettons_change':
      return all([e.account, e.wallet.owner, e.wallet.jetton]);
  }
}

/**
 * `address_book` and `metadata` as asked, from what the store said (`e.extras`): the book over the
 * addresses §6 gives per type, `metadata` over those (`jettons_change`: owner and master only), as
 * toncenter sends `{}` when it has none.
 */
function extras(view: View, e: BlockEvent, book: () => Iterable<[string | null, boolean]>, metadata: () => Iterable<string | null> = () => rawOf(book())): string {
  const known = e.extras;
  return `${view.includeAddressBook ? `,"address_book":${JSON.stringify(bookOf(book(), known))}` : ''}${view.includeMetadata ? `,"metadata":${JSON.stringify(metadataOf(metadata(), known))}` : ''}`;
}

const includes = (view: View) => `${view.includeAddressBook ? 1 : 0}${view.includeMetadata ? 1 : 0}`;

/** Where each event's notifications are kept per view (a Map will do; the fan-out's also counts their bytes). */
export type NotificationCache = { get(key: string): string | undefined; set(key: string, json: string): unknown };

function cached(cache: NotificationCache, key: string, build: () => string): string {
  let json = cache.get(key);
  if (json === undefined) cache.set(key, (json = build()));
  return json;
}

/** A trace tree (§6.3): `children` is [] without out messages, null when out messages led to no known transaction. */
type TreeJson = { tx_hash: string; in_msg_hash: string | null; children: TreeJson[] | null };

function traceTree(nodes: TraceNode[]): TreeJson | null {
  const byHash = new Map<string, TreeJson & { out: number }>();
  for (const n of nodes) byHash.set(n.tx_hash, { tx_hash: n.tx_hash, in_msg_hash: n.in_msg_hash, children: [], out: n.out_msgs });
  let root: TreeJson | null = null;
  for (const n of nodes) {
    const node = byHash.get(n.tx_hash)!;
    const parent = n.parent === null ? undefined : byHash.get(n.parent);
    if (parent) parent.children!.push(node);
    else root ??= node;
  }
  for (const node of byHash.values()) if (node.children!.length === 0 && node.out > 0) node.children = null;
  const strip = (n: TreeJson & { out?: number }): TreeJson => ({ tx_hash: n.tx_hash, in_msg_hash: n.in_msg_hash, children: n.children && n.children.map(strip) });
  return root && strip(root);
}

/**
 * The notification JSON for one client, or null when nothing in the event is for it. Every distinct
 * selection (transactions on subscribed accounts, actions the client is shown, includes) is built
 * once per event and finality and shared by all clients that see the same selection (`cache`).
 * `cursor` is spliced in last (tonstream's resume extension; clients ignore unknown fields).
 */
export function notificationJson(e: BlockEvent, finality: Finality, cursor: string | null, view: View, cache: NotificationCache): string | null {
  const tail = cursor === null ? '}' : `,"cursor":${JSON.stringify(cursor)}}`;
  const head = (norm: string) => `{"type":"${e.type}","finality":"${finality}","trace_external_hash_norm":${JSON.stringify(norm)}`;
  switch (e.type) {
    case 'account_state_change':
      return cached(cache, 's', () => `${JSON.stringify({ type: e.type, finality, account: e.account, state: accountStateJson(e.state) }).slice(0, -1)}${tail}`);
    case 'jettons_change':
      return cached(cache, `j${includes(view)}`, () => {
        const jetton = { address: e.account, balance: e.wallet.balance, owner: e.wallet.owner, jetton: e.wallet.jetton, last_transaction_lt: e.state.last_trans_lt, code_hash: e.state.code_hash, data_hash: e.state.data_hash };
        const book = (): [string, boolean][] => [[e.account, true], [e.wallet.owner, true], [e.wallet.jetton, true]];
        return `${JSON.stringify({ type: e.type, finality, jetton }).slice(0, -1)}${extras(view, e, book, () => [e.wallet.owner, e.wallet.jetton])}${tail}`;
      });
    case 'transactions': {
      const picked: number[] = [];
      e.txs.forEach((t, i) => view.addresses.has(t.account) && picked.push(i));
      if (picked.length === 0) return null;
      return cached(cache, `t${picked.join(',')}|${includes(view)}`, () => {
        const txs = picked.map((i) => e.txs[i]);
        return `${head(e.norm)},"transactions":[${txs.map((t) => transactionJson(t, finality)).join(',')}]${extras(view, e, () => txAddresses(txs))}${tail}`;
      });
    }
    case 'actions': {
      const picked: number[] = [];
      e.actions.forEach((a, i) => a.record.accounts.some((x) => view.addresses.has(x)) && isActionSelected(a.record, view) && picked.push(i));
      if (picked.length === 0) return null;
      return cached(cache, `a${picked.join(',')}|${includes(view)}`, () => {
        const actions = picked.map((i) => e.actions[i]);
        return `${head(e.norm)},"actions":[${actions.map((a) => actionJson(a, finality, e.norm)).join(',')}]${extras(view, e, () => actionBookAddresses(actions))}${tail}`;
      });
    }
    case 'trace': {
      const picked: number[] = [];
      e.actions.forEach((a, i) => isActionSelected(a.record, view) && picked.push(i));
      return cached(cache, `r${picked.join(',')}|${includes(view)}`, () => {
        const actions = picked.map((i) => e.actions[i]);
        const txs = `{${e.txs.map((t) => `${JSON.stringify(t.record.hash)}:${JSON.stringify({ ...transactionObject(t, finality), trace_external_hash: e.externalHash })}`).join(',')}}`;
        const listed = actions.length > 0 ? `,"actions":[${actions.map((a) => actionJson(a, finality, e.norm)).join(',')}]` : '';
        const book = () => [...txAddresses(e.txs), ...actionBookAddresses(actions)];
        return `${head(e.norm)},"trace":${JSON.stringify(traceTree(e.nodes))},"transactions":${txs}${listed}${extras(view, e, book)}${tail}`;
      });
    }
  }
}
