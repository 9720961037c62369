import type { TraceRecord } from '@tonstream/traces';
import type { Store } from '../client.js';
import { str, strList, uint } from '../sql.js';
import { TRACE_COLUMNS, traceFromRow, type TraceRow } from '../trace-facts.js';
import { hasTransactionSlice, readHotTraceIds } from '../hot/transactions.js';
import { askHotTier, type Page, pointRead, type ReadScope, servedSeqnos, sqlDirection, sqlPage, sqlWhere, tracesBound, uniquePage } from './scope.js';

/**
 * Filters of `/api/v3/traces`; all optional and ANDed (the API allows one of account, traceIds,
 * txHashes, msgHashes). Bounds are inclusive and on the trace's end.
 */
export type TraceFilter = {
  /** Raw upper-case address: traces with a transaction of this account. */
  account?: string;
  traceIds?: string[];
  /** Traces holding these transactions. */
  txHashes?: string[];
  /** Traces holding a transaction that received or sent these messages (hash or TEP-467 normalized hash). */
  msgHashes?: string[];
  /** Traces that ended in this masterchain block. */
  mcSeqno?: number;
  startUtime?: number;
  endUtime?: number;
  startLt?: bigint;
  endLt?: bigint;
};

/** `/traces` orders by end_lt, or by end_utime when a utime bound is given; then trace_id. */
export type TraceOrder = 'lt' | 'utime';

/** Trace ids of transactions that touched these messages (in or out side), through the lookups of migrations 5 and 8. */
export function tracesOfMessages(db: string, hashes: readonly string[]): string {
  const list = strList(hashes);
  const messages = `SELECT arrayJoin([${hashes.map(str).join(', ')}]) UNION ALL SELECT hash FROM ${db}.messages_by_hash_norm WHERE hash_norm IN ${list}`;
  return `(SELECT trace_id FROM ${db}.transaction_traces WHERE tx_hash IN (SELECT tx_hash FROM ${db}.messages WHERE hash IN (${messages})))`;
}

function bounds(f: TraceFilter): string[] {
  const where: string[] = [];
  if (f.startLt !== undefined) where.push(`end_lt >= ${uint(f.startLt)}`);
  if (f.endLt !== undefined) where.push(`end_lt <= ${uint(f.endLt)}`);
  if (f.startUtime !== undefined) where.push(`end_utime >= ${uint(f.startUtime)}`);
  if (f.endUtime !== undefined) where.push(`end_utime <= ${uint(f.endUtime)}`);
  if (f.mcSeqno !== undefined) where.push(`mc_seqno_end = ${uint(f.mcSeqno)}`);
  return where;
}

function orderBy(order: TraceOrder, d: 'ASC' | 'DESC'): string {
  return order === 'utime' ? `end_utime ${d}, end_lt ${d}, trace_id ${d}` : `end_lt ${d}, trace_id ${d}`;
}

/**
 * Traces at or below both watermarks (by the masterchain block they ended in; `tracesBound`) matching
 * `filter`, one page, newest version of each. Ids, transactions and messages narrow the main table by its key
 * (trace_id); an account, a masterchain block or no filter pages over a lookup table ordered by
 * that key and end_lt, and only the page's records are then read by trace_id.
 */
export async function readTraces(store: Store, scope: ReadScope, filter: TraceFilter, page: Page & { order: TraceOrder }): Promise<TraceRecord[]> {
  const bound = tracesBound(scope);
  if (bound === null) return [];
  for (const list of [filter.traceIds, filter.txHashes, filter.msgHashes]) if (list && list.length === 0) return [];
  const db = store.database;
  const d = sqlDirection(page.sort);
  const watermark = servedSeqnos('mc_seqno_end', bound, scope.floor);
  const keyed: string[] = [];
  if (filter.traceIds) keyed.push(`trace_id IN ${strList(filter.traceIds)}`);
  if (filter.txHashes) keyed.push(`trace_id IN (SELECT trace_id FROM ${db}.transaction_traces WHERE tx_hash IN ${strList(filter.txHashes)})`);
  if (filter.msgHashes) keyed.push(`trace_id IN ${tracesOfMessages(db, filter.msgHashes)}`);

  if (keyed.length > 0) {
    const account = filter.account === undefined ? [] : [`has(accounts, ${str(filter.account)})`];
    const rows = await store.query<TraceRow>(
      `SELECT ${TRACE_COLUMNS} FROM (
         SELECT ${TRACE_COLUMNS} FROM ${db}.traces ${sqlWhere(keyed)}
         ORDER BY trace_id, end_lt DESC LIMIT 1 BY trace_id
       ) ${sqlWhere([watermark, ...account, ...bounds(filter)])} ORDER BY ${orderBy(page.order, d)} ${sqlPage(page)}`,
      scope.query,
    );
    return rows.map(traceFromRow);
  }

  const lookup =
    filter.account !== undefined
      ? { table: 'traces_by_account', where: [`account = ${str(filter.account)}`] }
      : filter.mcSeqno !== undefined
        ? { table: 'traces_by_mc_seqno', where: [] }
        : { table: 'traces_by_end_lt', where: [] };
  const ids = await store.query<{ trace_id: string }>(
    uniquePage(store.cluster !== null, 'trace_id, end_lt, end_utime', `${db}.${lookup.table} ${sqlWhere([...lookup.where, watermark, ...bounds(filter)])}`, orderBy(page.order, d), 'trace_id', page),
    scope.query,
  );
  if (ids.length === 0) return [];
  const records = await store.query<TraceRow>(
    `SELECT ${TRACE_COLUMNS} FROM ${db}.traces WHERE trace_id IN ${strList(ids.map((r) => r.trace_id))} ORDER BY trace_id, end_lt DESC LIMIT 1 BY trace_id`,
    scope.query,
  );
  const byId = new Map(records.map((r) => [r.trace_id, traceFromRow(r)]));
  return ids.flatMap((r) => byId.get(r.trace_id) ?? []);
}

/** The trace of each of these transactions that has one stored (transaction_traces, migration 8). */
export async function readTransactionTraceIds(store: Store, scope: ReadScope, txHashes: readonly string[]): Promise<Map<string, string>> {
  if (scope.watermark === null || txHashes.length === 0) return new Map();
  const held = await askHotTier(scope.hot, async (tier) => (hasTransactionSlice(tier) ? readHotTraceIds(tier, txHashes) : undefined));
  const found = held?.found ?? new Map<string, string>();
  const unknown = held?.unknown ?? txHashes;
  if (unknown.length === 0) return found;
  const rows = await store.query<{ tx_hash: string; trace_id: string }>(
    `SELECT tx_hash, any(trace_id) AS trace_id FROM ${store.database}.transaction_traces WHERE tx_hash IN ${strList(unknown)} GROUP BY tx_hash`,
    pointRead(scope),
  );
  for (const r of rows) found.set(r.tx_hash, r.trace_id);
  return found;
}
