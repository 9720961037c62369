import { isDeepStrictEqual } from 'node:util';
import type { ActionRecord, TraceNodeRecord, TraceRecord } from '@tonstream/traces';

/**
 * Trace and action rows keep in `record` only what their columns do not hold (issue 26): a trace's ids,
 * bounds, state and the hashes and accounts of its transactions are columns, so its record text is the
 * rest (`[messages, pending_messages, classification_state, nodes]`, each node `[account index, lt,
 * in_msg_hash, parent index, out_msgs]`); an action's text is `[rest]`, the record without its column
 * fields. A record is stored this way only when its columns give it back exactly (checked on write), else
 * whole as before; a whole record's text is an object, a slim one an array, so the reader tells them apart
 * and rows stored before this change read as they did.
 */

/** The `traces` columns a trace's record is read back from. */
export const TRACE_COLUMNS = 'trace_id, end_lt, end_utime, start_lt, start_utime, mc_seqno_start, mc_seqno_end, external_hash, external_hash_norm, trace_state, is_incomplete, transactions, tx_hashes, accounts, record';
/** The `actions` columns an action's record is read back from. */
export const ACTION_COLUMNS = 'trace_id, action_id, type, parent_action_id, ancestor_type, start_lt, end_lt, trace_end_lt, trace_end_utime, trace_mc_seqno_end, tx_hashes, accounts, record';

export type TraceColumns = {
  trace_id: string;
  end_lt: string;
  end_utime: number;
  start_lt: string;
  start_utime: number;
  mc_seqno_start: number;
  mc_seqno_end: number;
  external_hash: string;
  external_hash_norm: string;
  trace_state: string;
  is_incomplete: number;
  transactions: number;
  tx_hashes: string[];
  accounts: string[];
};
export type ActionColumns = {
  trace_id: string;
  action_id: string;
  type: string;
  parent_action_id: string;
  ancestor_type: string[];
  start_lt: string;
  end_lt: string;
  trace_end_lt: string;
  trace_end_utime: number;
  trace_mc_seqno_end: number;
  tx_hashes: string[];
  accounts: string[];
};

/** A `traces` row as `SELECT ${TRACE_COLUMNS}` gives it. */
export type TraceRow = TraceColumns & { record: string };
/** An `actions` row as `SELECT ${ACTION_COLUMNS}` gives it. */
export type ActionRow = ActionColumns & { record: string };

type SlimNode = [account: number, lt: string, inMsgHash: string | null, parent: number | string | null, outMsgs: number];
type SlimTrace = [messages: number, pendingMessages: number, classificationState: string, nodes: SlimNode[]];

export function traceColumns(t: TraceRecord): TraceColumns {
  return {
    trace_id: t.trace_id,
    end_lt: t.end_lt,
    end_utime: t.end_utime,
    start_lt: t.start_lt,
    start_utime: t.start_utime,
    mc_seqno_start: t.mc_seqno_start,
    mc_seqno_end: t.mc_seqno_end,
    external_hash: t.external_hash ?? '',
    external_hash_norm: t.external_hash_norm ?? '',
    trace_state: t.trace_info.trace_state,
    is_incomplete: t.is_incomplete ? 1 : 0,
    transactions: t.trace_info.transactions,
    tx_hashes: t.nodes.map((n) => n.tx_hash),
    accounts: [...new Set(t.nodes.map((n) => n.account))],
  };
}

export function actionColumns(a: ActionRecord): ActionColumns {
  return {
    trace_id: a.trace_id,
    action_id: a.action_id,
    type: a.type,
    parent_action_id: a.parent_action_id ?? '',
    ancestor_type: a.ancestor_type ?? [],
    start_lt: a.start_lt,
    end_lt: a.end_lt,
    trace_end_lt: a.trace_end_lt,
    trace_end_utime: a.trace_end_utime,
    trace_mc_seqno_end: a.trace_mc_seqno_end,
    tx_hashes: a.transactions,
    accounts: [...new Set(a.accounts)],
  };
}

/** The record text a trace row stores beside `columns`: slim when the columns give the record back, else `json`. */
export function traceText(t: TraceRecord, columns: TraceColumns, json: string): string {
  const index = new Map(t.nodes.map((n, i) => [n.tx_hash, i]));
  const nodes = t.nodes.map((n): SlimNode => [columns.accounts.indexOf(n.account), n.lt, n.in_msg_hash, n.parent === null ? null : (index.get(n.parent) ?? n.parent), n.out_msgs]);
  const slim: SlimTrace = [t.trace_info.messages, t.trace_info.pending_messages, t.trace_info.classification_state, nodes];
  return isDeepStrictEqual(traceOf(columns, slim), t) ? JSON.stringify(slim) : json;
}

/** The record text an action row stores beside `columns`: slim when the columns give the record back, else `json`. */
export function actionText(a: ActionRecord, columns: ActionColumns, json: string): string {
  const { trace_id: _t, action_id: _a, type: _y, parent_action_id: _p, ancestor_type: _n, start_lt: _s, end_lt: _e, trace_end_lt: _l, trace_end_utime: _u, trace_mc_seqno_end: _m, transactions: _x, accounts: _c, ...rest } = a;
  return isDeepStrictEqual(actionOf(columns, [rest]), a) ? JSON.stringify([rest]) : json;
}

/** A trace read back from its row (`TRACE_COLUMNS`). */
export function traceFromRow(row: TraceRow): TraceRecord {
  const parsed = JSON.parse(row.record) as TraceRecord | SlimTrace;
  return Array.isArray(parsed) ? traceOf(row, parsed) : parsed;
}

/** An action read back from its row (`ACTION_COLUMNS`). */
export function actionFromRow(row: ActionRow): ActionRecord {
  const parsed = JSON.parse(row.record) as ActionRecord | [Record<string, unknown>];
  return Array.isArray(parsed) ? actionOf(row, parsed) : parsed;
}

function traceOf(c: TraceColumns, [messages, pending_messages, classification_state, nodes]: SlimTrace): TraceRecord {
  const node = ([account, lt, in_msg_hash, parent, out_msgs]: SlimNode, i: number): TraceNodeRecord => ({
    tx_hash: c.tx_hashes[i],
    account: c.accounts[account],
    lt,
    in_msg_hash,
    parent: typeof parent === 'number' ? c.tx_hashes[parent] : parent,
    out_msgs,
  });
  return {
    trace_id: c.trace_id,
    external_hash: c.external_hash || null,
    external_hash_norm: c.external_hash_norm || null,
    mc_seqno_start: Number(c.mc_seqno_start),
    mc_seqno_end: Number(c.mc_seqno_end),
    start_lt: String(c.start_lt),
    start_utime: Number(c.start_utime),
    end_lt: String(c.end_lt),
    end_utime: Number(c.end_utime),
    trace_info: { trace_state: c.trace_state as TraceRecord['trace_info']['trace_state'], messages, transactions: Number(c.transactions), pending_messages, classification_state: classification_state as TraceRecord['trace_info']['classification_state'] },
    is_incomplete: Number(c.is_incomplete) === 1,
    nodes: nodes.map(node),
  };
}

function actionOf(c: ActionColumns, [rest]: [Record<string, unknown>]): ActionRecord {
  return {
    ...rest,
    trace_id: c.trace_id,
    action_id: c.action_id,
    type: c.type,
    start_lt: String(c.start_lt),
    end_lt: String(c.end_lt),
    trace_end_lt: String(c.trace_end_lt),
    trace_end_utime: Number(c.trace_end_utime),
    trace_mc_seqno_end: Number(c.trace_mc_seqno_end),
    transactions: c.tx_hashes,
    accounts: c.accounts,
    parent_action_id: c.parent_action_id || null,
    ancestor_type: c.ancestor_type,
  } as ActionRecord;
}
