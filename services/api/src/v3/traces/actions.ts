import { type ActionFilter, readActions } from '@tonstream/store';
import { actionAddresses } from '@tonstream/traces';
import { toV3Action } from './action-objects.js';
import { actionType, supportedSet } from './action-types.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, optional, sort } from '../../http/params.js';
import { ref, unchecked } from '../../http/schema-kit.js';
import { ActionsResponse } from './schemas.js';
import { sideObjects } from '../side-objects.js';
import { transactionsResponse } from '../transactions/transactions.js';
import { requireMasterchainBlock } from './traces.js';

/**
 * GET /actions: docs/toncenter-v3.md §2.8. `action_id` replaces every other filter; `trace_id` replaces all
 * but `account`. Order: trace_end_lt, trace_id, end_lt, action_id <sort> (trace_end_utime first with
 * a utime bound). Bounds are on the trace's end.
 */
export const actionsEndpoint = defineEndpoint({
  path: '/actions',
  operationId: 'getActions',
  summary: 'Actions by account, transaction, message, trace, masterchain block, type or time',
  tag: 'actions',
  params: {
    account: optional(kinds.address, 'Actions involving this account.'),
    tx_hash: list(kinds.hash, 'Actions containing these transactions (repeat the key).'),
    msg_hash: list(kinds.hash, 'Actions of the traces whose transactions touched these messages (hash or normalized hash).'),
    action_id: list(kinds.hash, 'Action ids; replaces every other filter.'),
    trace_id: list(kinds.hash, 'Trace ids; combined with account if given, else replaces the other filters.'),
    mc_seqno: optional(kinds.int32, 'Actions of traces that ended in this masterchain block; 404 when it is not indexed.'),
    start_utime: optional(kinds.utime, 'trace_end_utime >= start_utime; orders by it.'),
    end_utime: optional(kinds.utime, 'trace_end_utime <= end_utime; orders by it.'),
    start_lt: optional(kinds.uint64, 'trace_end_lt >= start_lt.'),
    end_lt: optional(kinds.uint64, 'trace_end_lt <= end_lt.'),
    action_type: list(actionType, 'Only these action types.'),
    exclude_action_type: list(actionType, 'Not these action types.'),
    supported_action_types: list(actionType, 'Action types (or shortcuts v1..v4, latest) the client understands; default latest.'),
    include_accounts: optional(kinds.bool, 'Add the accounts of each action.'),
    include_transactions: optional(kinds.bool, 'Add transactions_full: the actions\' transactions in full.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  },
  response: unchecked(ref(ActionsResponse)),
  notFound: 'masterchain block N not found (with mc_seqno)',
  async handle(ctx) {
    const { params: p, store, scope, settings, testnet } = ctx;
    const supported = supportedSet(p.supported_action_types, ctx.settings.actionsVersion);
    const types = { types: p.action_type ?? supported, supported, excludeTypes: p.exclude_action_type };
    const byTime = p.start_utime !== undefined || p.end_utime !== undefined;
    const page = { limit: p.limit, offset: p.offset, sort: p.sort, order: byTime ? ('utime' as const) : ('lt' as const) };
    const filter: ActionFilter = p.action_id
      ? { actionIds: p.action_id, ...types }
      : p.trace_id
        ? { traceIds: p.trace_id, account: p.account, ...types }
        : {
            account: p.account, txHashes: p.tx_hash, msgHashes: p.msg_hash, mcSeqno: p.mc_seqno,
            startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt, endLt: p.end_lt, ...types,
          };
    if (filter.mcSeqno !== undefined) await requireMasterchainBlock(ctx, filter.mcSeqno);
    const found = await readActions(store, scope, filter, page);
    const actions = found.map((a) => toV3Action(a, p.include_accounts === true));
    if (p.include_transactions && found.length > 0) {
      const hashes = [...new Set(found.flatMap((a) => a.transactions))];
      const { transactions } = await transactionsResponse({ ...ctx, settings: { ...settings, noAddressBook: true } }, { hashes }, { limit: hashes.length, offset: 0, sort: 'asc', order: 'lt' });
      const byHash = new Map(transactions.map((t) => [t.hash, t]));
      actions.forEach((a, i) => (a.transactions_full = found[i].transactions.flatMap((h) => byHash.get(h) ?? [])));
    }
    const addresses = found.flatMap(actionAddresses);
    return { actions, ...(await sideObjects({ settings, store, scope, testnet }, addresses)) };
  },
});
