import type { ActionRecord } from '@tonstream/traces';
import type { Store } from '../client.js';
import { str, strArray, strList, uint } from '../sql.js';
import { ACTION_COLUMNS, actionFromRow, type ActionRow } from '../trace-facts.js';
import { type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlWhere, tracesBound, uniquePage } from './scope.js';
import { tracesOfMessages } from './traces.js';

/**
 * Filters of `/api/v3/actions`; all optional and ANDed except as toncenter combines them (the API
 * decides: action ids replace every other filter, trace ids replace all but the account). Bounds
 * are inclusive and on the trace's end (trace_end_lt / trace_end_utime).
 */
export type ActionFilter = {
  account?: string;
  actionIds?: string[];
  traceIds?: string[];
  /** Actions whose transactions include these. */
  txHashes?: string[];
  /** Actions of the traces whose transactions touched these messages. */
  msgHashes?: string[];
  mcSeqno?: number;
  startUtime?: number;
  endUtime?: number;
  startLt?: bigint;
  endLt?: bigint;
  /**
   * The supported set S (expanded, allow-listed characters): an action is returned iff its type is in
   * `types` (S, or the requested action_type list) and none of its ancestors' types is in S.
   */
  types?: string[];
  supported?: string[];
  excludeTypes?: string[];
};

export type ActionOrder = 'lt' | 'utime';

function conditions(f: ActionFilter): string[] {
  const where: string[] = [];
  if (f.startLt !== undefined) where.push(`trace_end_lt >= ${uint(f.startLt)}`);
  if (f.endLt !== undefined) where.push(`trace_end_lt <= ${uint(f.endLt)}`);
  if (f.startUtime !== undefined) where.push(`trace_end_utime >= ${uint(f.startUtime)}`);
  if (f.endUtime !== undefined) where.push(`trace_end_utime <= ${uint(f.endUtime)}`);
  if (f.mcSeqno !== undefined) where.push(`trace_mc_seqno_end = ${uint(f.mcSeqno)}`);
  if (f.types) where.push(f.types.length === 0 ? '0' : `type IN ${strList(f.types)}`);
  if (f.supported && f.supported.length > 0) where.push(`NOT hasAny(ancestor_type, [${f.supported.map(str).join(', ')}])`);
  if (f.excludeTypes && f.excludeTypes.length > 0) where.push(`type NOT IN ${strList(f.excludeTypes)}`);
  return where;
}

function orderBy(order: ActionOrder, d: 'ASC' | 'DESC'): string {
  const time = order === 'utime' ? `trace_end_utime ${d}, ` : '';
  return `${time}trace_end_lt ${d}, trace_id ${d}, end_lt ${d}, action_id ${d}`;
}

/**
 * Actions of traces at or below both watermarks (`tracesBound`) matching `filter`, one page. Ids, traces, transactions
 * and messages narrow the main table by its key (trace_id, action_id); an account, or no filter,
 * pages over a lookup table that carries every filtered column, then reads the page's records by key.
 */
export async function readActions(store: Store, scope: ReadScope, filter: ActionFilter, page: Page & { order: ActionOrder }): Promise<ActionRecord[]> {
  const bound = tracesBound(scope);
  if (bound === null) return [];
  for (const list of [filter.actionIds, filter.traceIds, filter.txHashes, filter.msgHashes]) if (list && list.length === 0) return [];
  const db = store.database;
  const d = sqlDirection(page.sort);
  const where = [servedSeqnos('trace_mc_seqno_end', bound, scope.floor), ...conditions(filter)];
  const keyed: string[] = [];
  if (filter.actionIds) keyed.push(`(trace_id, action_id) IN (SELECT trace_id, action_id FROM ${db}.actions_by_id WHERE action_id IN ${strList(filter.actionIds)})`);
  if (filter.traceIds) keyed.push(`trace_id IN ${strList(filter.traceIds)}`);
  // A transaction's actions are those of its trace that list it.
  if (filter.txHashes) keyed.push(`trace_id IN (SELECT trace_id FROM ${db}.transaction_traces WHERE tx_hash IN ${strList(filter.txHashes)})`, `hasAny(tx_hashes, ${strArray(filter.txHashes)})`);
  if (filter.msgHashes) keyed.push(`trace_id IN ${tracesOfMessages(db, filter.msgHashes)}`);
  if (filter.mcSeqno !== undefined && filter.account === undefined) keyed.push(`trace_id IN (SELECT trace_id FROM ${db}.traces_by_mc_seqno WHERE mc_seqno_end = ${uint(filter.mcSeqno)})`);

  if (keyed.length > 0) {
    const account = filter.account === undefined ? [] : [`has(accounts, ${str(filter.account)})`];
    const rows = await store.query<ActionRow>(uniquePage(store.cluster !== null, ACTION_COLUMNS, `${db}.actions ${sqlWhere([...keyed, ...account, ...where])}`, orderBy(page.order, d), 'trace_id, action_id', page), scope.query);
    return rows.map(actionFromRow);
  }

  // The page's keys from the lookup, then the records of those keys only, in one query (as readTransactions).
  const lookup = filter.account !== undefined ? { table: 'action_accounts', where: [`account = ${str(filter.account)}`] } : { table: 'actions_by_trace_end_lt', where: [] };
  const keys = uniquePage(store.cluster !== null, 'trace_id, action_id', `${db}.${lookup.table} ${sqlWhere([...lookup.where, ...where])}`, orderBy(page.order, d), 'trace_id, action_id', page);
  const rows = await store.query<ActionRow>(
    `SELECT ${ACTION_COLUMNS} FROM ${db}.actions WHERE (trace_id, action_id) IN (${keys}) ORDER BY ${orderBy(page.order, d)} LIMIT 1 BY trace_id, action_id`,
    pointRead(scope),
  );
  return rows.map(actionFromRow);
}

/** Every action of these traces (for `/traces?include_actions=true`), filtered as `readActions` filters types. */
export async function readTraceActions(store: Store, scope: ReadScope, traceIds: string[], types: Pick<ActionFilter, 'types' | 'supported'>): Promise<ActionRecord[]> {
  const bound = tracesBound(scope);
  if (traceIds.length === 0 || bound === null) return [];
  const rows = await store.query<ActionRow>(
    `SELECT ${ACTION_COLUMNS} FROM ${store.database}.actions ${sqlWhere([`trace_id IN ${strList(traceIds)}`, servedSeqnos('trace_mc_seqno_end', bound, scope.floor), ...conditions(types)])}
     ORDER BY trace_id, start_lt, end_lt, action_id LIMIT 1 BY trace_id, action_id`,
    scope.query,
  );
  return rows.map(actionFromRow);
}
