import { rethrowBugs } from '@tonstream/errors';
import type { MessageRecord, MessageRow, TransactionRecord } from '@tonstream/records';
import { messageKey, type PendingKeys, readPendingActions, readPendingTraces, readPendingTransactions, readTraces, type StoredPendingTrace } from '@tonstream/store';
import type { ActionRecord } from '@tonstream/traces';
import type { Redis } from 'ioredis';
import { HttpError } from '../../http/http-error.js';
import { buildAddressBook } from '../address-book.js';
import { toV3Action } from '../traces/action-objects.js';
import { actionType, supportedSet } from '../traces/action-types.js';
import { defineEndpoint, type EndpointContext } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { toV3Transaction } from '../transactions/objects.js';
import { sideObjects } from '../side-objects.js';
import { list, optional, type Params, requiredList } from '../../http/params.js';
import { ref, unchecked } from '../../http/schema-kit.js';
import { ActionsResponse, TracesResponse } from '../traces/schemas.js';
import { TransactionsResponse } from '../transactions/schemas.js';

/** Where pending (emulated) traces are read: the emulator's Redis layout (`@tonstream/store` pending). */
export type PendingReader = { redis: Redis; keys: PendingKeys };

/** A pending transaction as the emulator stores it: the full record plus the pending marks. */
type StoredTransaction = TransactionRecord & { trace_external_hash: string; trace_external_hash_norm: string; finality: string };
type StoredNode = { tx_hash: string; in_msg_hash: string | null; parent: string | null };
type StoredTrace = {
  external_hash: string;
  mc_seqno_end: number;
  start_lt: string;
  start_utime: number;
  end_lt: string;
  end_utime: number;
  trace_info: Record<string, unknown>;
  is_incomplete: boolean;
  nodes: StoredNode[];
};

/** Redis down or not configured: the index itself still answers, only pending data is unavailable. */
async function fromRedis<T>(ctx: { pending: PendingReader | undefined }, read: (r: PendingReader) => Promise<T>): Promise<T> {
  if (!ctx.pending) throw new HttpError(503, 'pending traces unavailable: no Redis configured for them');
  try {
    return await read(ctx.pending);
  } catch (err) {
    throw new HttpError(503, `pending traces unavailable: Redis unreachable (${(err as Error).message})`);
  }
}

/** The v3 Transaction of a stored pending transaction (its states known by hash only). */
function pendingTransaction(t: StoredTransaction) {
  const row = (m: MessageRecord, direction: 'in' | 'out'): [string, MessageRow] => [messageKey(t.hash, direction, m.hash), { ...m, direction, tx_hash: t.hash, tx_lt: t.lt, mc_block_seqno: t.mc_block_seqno }];
  const messages = new Map([...(t.in_msg ? [row(t.in_msg, 'in')] : []), ...t.out_msgs.map((m) => row(m, 'out'))]);
  const { trace_external_hash, trace_external_hash_norm: _n, finality, ...record } = t;
  const v3 = toV3Transaction({ ...record, in_msg: t.in_msg && { hash: t.in_msg.hash }, out_msgs: t.out_msgs.map((m) => ({ hash: m.hash })) }, messages, new Map());
  return { ...v3, trace_external_hash, emulated: true, finality };
}

/** Shown when its type is supported and no ancestor's is (the ancestor then stands for it). */
function shownActions(actions: StoredPendingTrace['actions'], supported: string[]): ActionRecord[] {
  const set = new Set(supported);
  return (actions as unknown as ActionRecord[]).filter((a) => set.has(a.type) && !(a.ancestor_type ?? []).some((t) => set.has(t)));
}

function pendingAction(a: ActionRecord, includeAccounts: boolean) {
  return { ...toV3Action(a, includeAccounts), finality: (a.finality as string | undefined) ?? 'pending' };
}

type TreeNode = { tx_hash: string; in_msg_hash?: string; children: TreeNode[] };

function traceTree(nodes: StoredNode[]): TreeNode | undefined {
  const byHash = new Map<string, TreeNode>();
  for (const n of nodes) byHash.set(n.tx_hash, { tx_hash: n.tx_hash, ...(n.in_msg_hash ? { in_msg_hash: n.in_msg_hash } : {}), children: [] });
  for (const n of nodes) if (n.parent) byHash.get(n.parent)?.children.push(byHash.get(n.tx_hash)!);
  return nodes.length > 0 ? byHash.get(nodes[0].tx_hash) : undefined;
}

/** A pending trace as toncenter serves it: no trace_id yet, `mc_seqno_start` "0", actions always. */
function pendingTraceObject(stored: StoredPendingTrace, supported: string[]) {
  const t = stored.trace as StoredTrace;
  const txs = new Map<string, ReturnType<typeof pendingTransaction>>();
  for (const tx of stored.transactions.values()) {
    const v3 = pendingTransaction(tx as StoredTransaction);
    txs.set(v3.hash, v3);
  }
  const order = t.nodes.map((n) => n.tx_hash);
  return {
    trace_id: null,
    external_hash: t.external_hash,
    mc_seqno_start: '0',
    mc_seqno_end: String(t.mc_seqno_end),
    start_lt: t.start_lt,
    start_utime: t.start_utime,
    end_lt: t.end_lt,
    end_utime: t.end_utime,
    trace_info: t.trace_info,
    is_incomplete: t.is_incomplete,
    actions: shownActions(stored.actions, supported).map((a) => pendingAction(a, false)),
    trace: traceTree(t.nodes),
    transactions_order: order,
    transactions: Object.fromEntries(order.filter((h) => txs.has(h)).map((h) => [h, txs.get(h)!])),
  };
}

/**
 * toncenter drops a pending trace once the index holds its confirmed trace complete (docs/traces-and-actions.md §5.6): until the
 * emulator's next pass deletes it (services/emulator confirmations.ts), a client would otherwise see both. Matched by the external's raw hash; with the
 * index unreachable nothing is dropped (pending data is served from Redis alone).
 */
async function dropConfirmed<P extends Params, T>(ctx: EndpointContext<P>, items: T[], externalOf: (item: T) => string): Promise<T[]> {
  const externals = [...new Set(items.map(externalOf))];
  if (externals.length === 0 || ctx.scope.watermark === null) return items;
  let traces;
  try {
    traces = await readTraces(ctx.store, ctx.scope, { msgHashes: externals }, { limit: externals.length * 2, offset: 0, sort: 'desc', order: 'lt' });
  } catch (err) {
    rethrowBugs(err);
    return items;
  }
  const confirmed = new Set(traces.filter((t) => t.trace_info.trace_state === 'complete' && t.external_hash !== null).map((t) => t.external_hash));
  return confirmed.size === 0 ? items : items.filter((i) => !confirmed.has(externalOf(i)));
}

function requireTarget(account: string | undefined, hashes: string[] | undefined): void {
  if (account === undefined && (hashes === undefined || hashes.length === 0)) throw new HttpError(422, 'account or ext_msg_hash should be specified');
}

async function addressBook<P extends Params>(ctx: EndpointContext<P>, addresses: (string | null)[]) {
  return ctx.settings.noAddressBook ? {} : buildAddressBook(ctx.store, ctx.scope, addresses, ctx.testnet);
}

const target = {
  account: optional(kinds.address, 'Pending traces with a transaction of this account.'),
  ext_msg_hash: list(kinds.hash, 'Hash of the external message: its TEP-467 normalized hash or its raw hash (repeat the key).'),
  supported_action_types: list(actionType, 'Action types (or shortcuts v1..v4, latest) the client understands; default latest.'),
};

/** GET /pendingTraces: docs/toncenter-v3.md §2.8, from the emulator's Redis. */
export const pendingTracesEndpoint = defineEndpoint({
  path: '/pendingTraces',
  operationId: 'getPendingTraces',
  summary: 'Traces of external messages not in a block yet, as emulated on arrival',
  description: 'Served from Redis (the emulator service); 503 when Redis is unreachable. A trace stays until its confirmed trace replaces it or its TTL passes.',
  tag: 'actions and traces',
  params: target,
  response: unchecked(ref(TracesResponse)),
  async handle(ctx) {
    const p = ctx.params;
    requireTarget(p.account, p.ext_msg_hash);
    const found = await fromRedis(ctx, (r) => readPendingTraces(r.redis, r.keys, { account: p.account, hashes: p.ext_msg_hash }));
    const stored = await dropConfirmed(ctx, found, (s) => (s.trace as StoredTrace).external_hash);
    const traces = stored.map((s) => pendingTraceObject(s, supportedSet(p.supported_action_types, ctx.settings.actionsVersion)));
    const addresses = traces.flatMap((t) => Object.values(t.transactions).flatMap((x) => [x.account, x.in_msg?.source ?? null, ...x.out_msgs.map((m) => m.destination)]));
    return { traces, ...(await sideObjects(ctx, addresses)) };
  },
});

/** GET /pendingActions: the actions of pending traces; by account, the actions that list the account. */
export const pendingActionsEndpoint = defineEndpoint({
  path: '/pendingActions',
  operationId: 'getPendingActions',
  summary: 'Actions of pending (emulated) traces',
  description: 'With `account`, every pending action that involves the account (also when another account made the transaction, e.g. a Jetton wallet). 503 when Redis is unreachable.',
  tag: 'actions and traces',
  params: { ...target, include_transactions: optional(kinds.bool, 'Add `transactions_full` with the emulated transactions.') },
  response: unchecked(ref(ActionsResponse)),
  async handle(ctx) {
    const p = ctx.params;
    requireTarget(p.account, p.ext_msg_hash);
    const read = await fromRedis(ctx, (r) => readPendingActions(r.redis, r.keys, { account: p.account, hashes: p.ext_msg_hash }));
    const found = await dropConfirmed(ctx, read, (f) => (f.trace.trace as StoredTrace).external_hash);
    const supported = supportedSet(p.supported_action_types, ctx.settings.actionsVersion);
    const actions = found.flatMap(({ trace, actions: list }) =>
      shownActions(list, supported).map((a) => {
        const out: Record<string, unknown> = pendingAction(a, true);
        if (p.include_transactions) out.transactions_full = a.transactions.flatMap((h) => [...trace.transactions.values()].filter((t) => (t as StoredTransaction).hash === h).map((t) => pendingTransaction(t as StoredTransaction)));
        return out;
      }),
    );
    const addresses = actions.flatMap((a) => a.accounts as string[]);
    return { actions, ...(await sideObjects(ctx, addresses)) };
  },
});

/** GET /pendingTransactions: the emulated transactions of accounts (toncenter requires `account`). */
export const pendingTransactionsEndpoint = defineEndpoint({
  path: '/pendingTransactions',
  operationId: 'getPendingTransactions',
  summary: 'Emulated transactions of accounts, from pending traces',
  description: '503 when Redis is unreachable.',
  tag: 'transactions',
  params: {
    account: requiredList(kinds.address, 'Account addresses (repeat the key).', 'at least 1 account address required'),
    trace_id: list(kinds.hash, 'Accepted for compatibility; pending traces have no trace id yet.'),
  },
  response: ref(TransactionsResponse),
  notFound: 'emulated traces not found',
  async handle(ctx) {
    const read = await fromRedis(ctx, (r) => readPendingTransactions(r.redis, r.keys, ctx.params.account));
    const found = await dropConfirmed(ctx, read, (f) => (f.transaction as StoredTransaction).trace_external_hash);
    if (found.length === 0) throw new HttpError(404, 'emulated traces not found');
    const transactions = found.map((f) => pendingTransaction(f.transaction as StoredTransaction));
    const addresses = transactions.flatMap((t) => [t.account, t.in_msg?.source ?? null, ...t.out_msgs.map((m) => m.destination)]);
    return { transactions, address_book: await addressBook(ctx, addresses) };
  },
});
