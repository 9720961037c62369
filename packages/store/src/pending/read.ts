import type { Redis } from 'ioredis';
import { type PendingKeys, TRACE_FIELDS } from './layout.js';

/** Pending traces an account query returns at most (toncenter's pending endpoints take no limit). */
export const MAX_PENDING_TRACES = 100;

/** A stored pending trace, its transactions by inbound message hash, and its actions (JSON as stored). */
export type StoredPendingTrace = { hashNorm: string; trace: unknown; transactions: Map<string, unknown>; actions: { action_id: string; [f: string]: unknown }[] };

/** hash_norms of the account's pending traces, newest transaction first. */
async function accountTraceKeys(redis: Redis, set: string, limit: number): Promise<{ norm: string; suffix: string }[]> {
  const members = await redis.zrevrange(set, 0, limit * 8 - 1);
  return members.map((m) => {
    const i = m.indexOf(':');
    return { norm: m.slice(0, i), suffix: m.slice(i + 1) };
  });
}

/** Trace keys of externals named by a hash: the TEP-467 hash itself, or any message hash of the trace. */
async function resolveHashes(redis: Redis, keys: PendingKeys, hashes: readonly string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const p = redis.pipeline();
  for (const h of hashes) {
    p.exists(keys.trace(h));
    p.get(keys.message(h));
  }
  const res = (await p.exec()) ?? [];
  const out = new Set<string>();
  hashes.forEach((h, i) => {
    const [e1, exists] = res[2 * i];
    const [e2, viaMessage] = res[2 * i + 1];
    if (e1 || e2) throw e1 ?? e2;
    if (exists === 1) out.add(h);
    else if (typeof viaMessage === 'string') out.add(viaMessage);
  });
  return [...out];
}

async function loadTraces(redis: Redis, keys: PendingKeys, norms: readonly string[]): Promise<StoredPendingTrace[]> {
  if (norms.length === 0) return [];
  const p = redis.pipeline();
  for (const n of norms) p.hgetall(keys.trace(n));
  const res = (await p.exec()) ?? [];
  const out: StoredPendingTrace[] = [];
  norms.forEach((hashNorm, i) => {
    const [err, fields] = res[i] as [Error | null, Record<string, string>];
    if (err) throw err;
    // Gone between the index read and this one (deleted or expired): not an error.
    if (!fields || fields[TRACE_FIELDS.trace] === undefined) return;
    const transactions = new Map<string, unknown>();
    for (const [k, v] of Object.entries(fields)) if (k.startsWith(TRACE_FIELDS.txPrefix)) transactions.set(k.slice(TRACE_FIELDS.txPrefix.length), JSON.parse(v));
    out.push({ hashNorm, trace: JSON.parse(fields[TRACE_FIELDS.trace]), transactions, actions: JSON.parse(fields[TRACE_FIELDS.actions] ?? '[]') });
  });
  return out;
}

export type PendingQuery = { account?: string; hashes?: readonly string[] };

/** Pending traces with a transaction of `account` (newest first), or of the externals named by `hashes`. */
export async function readPendingTraces(redis: Redis, keys: PendingKeys, q: PendingQuery, limit = MAX_PENDING_TRACES): Promise<StoredPendingTrace[]> {
  const norms = new Set<string>();
  if (q.account) for (const m of await accountTraceKeys(redis, keys.accountTxs(q.account), limit)) norms.add(m.norm);
  for (const n of await resolveHashes(redis, keys, q.hashes ?? [])) norms.add(n);
  return loadTraces(redis, keys, [...norms].slice(0, limit));
}

/**
 * Pending actions: with `account`, the actions that list it among their accounts (so a Jetton
 * receiver sees a transfer its wallet received), with `hashes` every action of those traces.
 */
export async function readPendingActions(redis: Redis, keys: PendingKeys, q: PendingQuery, limit = MAX_PENDING_TRACES): Promise<{ trace: StoredPendingTrace; actions: StoredPendingTrace['actions'] }[]> {
  const wanted = new Map<string, Set<string> | 'all'>();
  if (q.account) {
    for (const m of await accountTraceKeys(redis, keys.accountActions(q.account), limit)) {
      const ids = wanted.get(m.norm);
      if (ids === 'all') continue;
      wanted.set(m.norm, (ids ?? new Set()).add(m.suffix));
    }
  }
  for (const n of await resolveHashes(redis, keys, q.hashes ?? [])) wanted.set(n, 'all');
  const traces = await loadTraces(redis, keys, [...wanted.keys()].slice(0, limit));
  return traces.map((trace) => {
    const ids = wanted.get(trace.hashNorm)!;
    return { trace, actions: ids === 'all' ? trace.actions : trace.actions.filter((a) => ids.has(a.action_id)) };
  });
}

/** Pending transactions of the accounts, newest first, each with its trace's hash_norm. */
export async function readPendingTransactions(redis: Redis, keys: PendingKeys, accounts: readonly string[], limit = MAX_PENDING_TRACES): Promise<{ hashNorm: string; transaction: unknown }[]> {
  const refs: { norm: string; suffix: string }[] = [];
  for (const a of accounts) refs.push(...(await accountTraceKeys(redis, keys.accountTxs(a), limit)));
  if (refs.length === 0) return [];
  const p = redis.pipeline();
  for (const r of refs) p.hget(keys.trace(r.norm), `${TRACE_FIELDS.txPrefix}${r.suffix}`);
  const res = (await p.exec()) ?? [];
  const out: { hashNorm: string; transaction: unknown }[] = [];
  refs.forEach((r, i) => {
    const [err, json] = res[i];
    if (err) throw err;
    if (typeof json === 'string') out.push({ hashNorm: r.norm, transaction: JSON.parse(json) });
  });
  return out;
}
