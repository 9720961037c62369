import { masterchainBlockIndexed, readTraceActions, readTraces } from '@tonstream/store';
import { actionAddresses, type TraceRecord, traceTree } from '@tonstream/traces';
import { HttpError } from '../../http/http-error.js';
import { toV3Action } from './action-objects.js';
import { actionType, supportedSet } from './action-types.js';
import { defineEndpoint, type EndpointContext } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, optional, type Params, sort } from '../../http/params.js';
import { ref, unchecked } from '../../http/schema-kit.js';
import { EventsResponse, TracesResponse } from './schemas.js';
import { sideObjects } from '../side-objects.js';
import { transactionsResponse } from '../transactions/transactions.js';

/** toncenter's `-max-trace-txs`: bigger traces come back without their tree, flagged incomplete. */
export const MAX_TRACE_TRANSACTIONS = 4000;
export const TRACE_TOO_LARGE = 'trace is too large';

/** 404 `masterchain block N not found` unless the block is stored and at or below the watermark. */
export async function requireMasterchainBlock<P extends Params>(ctx: EndpointContext<P>, seqno: number): Promise<void> {
  if (!(await masterchainBlockIndexed(ctx.store, ctx.scope, seqno))) throw new HttpError(404, `masterchain block ${seqno} not found`);
}

const traceParams = {
  account: optional(kinds.address, 'Traces with a transaction of this account.'),
  trace_id: list(kinds.hash, 'Trace ids: the hash of the root transaction (repeat the key).'),
  tx_hash: list(kinds.hash, 'Traces holding these transactions.'),
  msg_hash: list(kinds.hash, 'Traces holding a transaction that received or sent these messages (hash or normalized hash).'),
  mc_seqno: optional(kinds.int32, 'Complete traces that ended in this masterchain block; 404 when it is not indexed.'),
  start_utime: optional(kinds.utime, 'end_utime >= start_utime; orders by end_utime.'),
  end_utime: optional(kinds.utime, 'end_utime <= end_utime; orders by end_utime.'),
  start_lt: optional(kinds.uint64, 'end_lt >= start_lt.'),
  end_lt: optional(kinds.uint64, 'end_lt <= end_lt.'),
  include_actions: optional(kinds.bool, 'Add each trace\'s actions.'),
  supported_action_types: list(actionType, 'Action types (or shortcuts v1..v4, latest) the client understands; default latest.'),
  limit: limit(),
  offset: offset(),
  sort: sort('desc'),
};

/** The public Trace object: counters as stored, the tree and its transactions in full unless the trace is too large. */
async function tracesBody<P extends Params>(ctx: EndpointContext<P>, includeActions: boolean, supportedTypes: string[] | undefined) {
  const p = ctx.params as unknown as { [K in keyof typeof traceParams]: ReturnType<(typeof traceParams)[K]['read']> };
  const { store, scope, settings, testnet } = ctx;
  const named = [p.account, p.trace_id, p.tx_hash, p.msg_hash].filter((v) => v !== undefined).length;
  if (named > 1) throw new HttpError(422, 'only one of account, trace_id, tx_hash, msg_hash should be specified');
  if (p.mc_seqno !== undefined) await requireMasterchainBlock(ctx, p.mc_seqno);
  const byTime = p.start_utime !== undefined || p.end_utime !== undefined;
  const records = await readTraces(
    store,
    scope,
    {
      account: p.account, traceIds: p.trace_id, txHashes: p.tx_hash, msgHashes: p.msg_hash, mcSeqno: p.mc_seqno,
      startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt, endLt: p.end_lt,
    },
    { limit: p.limit, offset: p.offset, sort: p.sort, order: byTime ? 'utime' : 'lt' },
  );
  const shown = p.mc_seqno === undefined ? records : records.filter((t) => t.trace_info.trace_state === 'complete');
  const small = shown.filter((t) => t.nodes.length <= MAX_TRACE_TRANSACTIONS);
  const hashes = small.flatMap((t) => t.nodes.map((n) => n.tx_hash));
  const { transactions } =
    hashes.length === 0
      ? { transactions: [] }
      : await transactionsResponse({ ...ctx, settings: { ...settings, noAddressBook: true } }, { hashes }, { limit: hashes.length, offset: 0, sort: 'asc', order: 'lt' });
  const byHash = new Map(transactions.map((t) => [t.hash, t]));
  const supported = supportedSet(supportedTypes, ctx.settings.actionsVersion);
  const actions = includeActions ? await readTraceActions(store, scope, shown.map((t) => t.trace_id), { types: supported, supported }) : [];
  const traces = shown.map((t) => traceObject(t, byHash, includeActions ? actions.filter((a) => a.trace_id === t.trace_id) : undefined));
  const addresses = [...transactions.flatMap((t) => [t.account, t.in_msg?.source ?? null, ...t.out_msgs.map((m) => m.destination)]), ...actions.flatMap(actionAddresses)];
  return { traces, ...(await sideObjects({ settings, store, scope, testnet }, addresses)) };
}

function traceObject(t: TraceRecord, transactions: Map<string, unknown>, actions: Parameters<typeof toV3Action>[0][] | undefined) {
  const tooLarge = t.nodes.length > MAX_TRACE_TRANSACTIONS;
  const tree = tooLarge ? undefined : traceTree(t.nodes);
  return {
    trace_id: t.trace_id,
    external_hash: t.external_hash,
    mc_seqno_start: String(t.mc_seqno_start),
    mc_seqno_end: String(t.mc_seqno_end),
    start_lt: t.start_lt,
    start_utime: t.start_utime,
    end_lt: t.end_lt,
    end_utime: t.end_utime,
    trace_info: t.trace_info,
    is_incomplete: t.is_incomplete || tooLarge,
    ...(tooLarge ? { warning: TRACE_TOO_LARGE } : tree?.warning ? { warning: tree.warning } : {}),
    ...(actions ? { actions: actions.map((a) => toV3Action(a, false)) } : {}),
    ...(tree?.trace ? { trace: tree.trace, transactions_order: tree.transactions_order } : {}),
    ...(tree ? { transactions: Object.fromEntries(t.nodes.flatMap((n) => (transactions.has(n.tx_hash) ? [[n.tx_hash, transactions.get(n.tx_hash)]] : []))) } : {}),
  };
}

/**
 * GET /traces: docs/toncenter-v3.md §2.8. At most one of account, trace_id, tx_hash, msg_hash. Order:
 * end_lt (end_utime with a utime bound) <sort>, then trace_id. Only traces whose last masterchain
 * block is at or below the watermark are served.
 */
export const tracesEndpoint = defineEndpoint({
  path: '/traces',
  operationId: 'getTraces',
  summary: 'Traces by account, trace id, transaction, message, masterchain block or time',
  tag: 'actions',
  params: traceParams,
  response: unchecked(ref(TracesResponse)),
  notFound: 'masterchain block N not found (with mc_seqno)',
  handle: (ctx) => tracesBody(ctx, ctx.params.include_actions === true, ctx.params.supported_action_types),
});

/** GET /events: the deprecated alias of /traces, actions always included, under `events`. */
export const eventsEndpoint = defineEndpoint({
  path: '/events',
  operationId: 'getEvents',
  summary: 'Deprecated alias of /traces with actions',
  tag: 'actions',
  params: traceParams,
  response: unchecked(ref(EventsResponse)),
  notFound: 'masterchain block N not found (with mc_seqno)',
  async handle(ctx) {
    const { traces, ...rest } = await tracesBody(ctx, true, ctx.params.supported_action_types);
    return { events: traces, ...rest };
  },
});
