import type { Redis } from 'ioredis';
import { DELETE_PENDING_TRACE_LUA } from './delete.js';
import { type PendingKeys, TRACE_FIELDS, type TraceIndex } from './layout.js';

/** Keys outlive the trace's expiry by this much, so the sweeper (which counts expiries) gets there first. */
export const REDIS_TTL_GRACE_MS = 60_000;

/** What the store needs of a pending trace; the emulator's records fit (`@tonstream/emulation`). */
export type PendingTraceEntry = {
  trace: { external_hash: string; external_hash_norm: string; start_lt: string; nodes: unknown[] };
  transactions: { account: string; lt: string; in_msg: { hash: string } | null; out_msgs: { hash: string }[] }[];
  actions: { action_id: string; accounts?: string[] }[];
};

/** The index entries of a trace: which account sets and message keys point at it. */
export function traceIndex(entry: PendingTraceEntry): TraceIndex {
  const txs: [string, string][] = [];
  const messages = new Set<string>([entry.trace.external_hash]);
  for (const t of entry.transactions) {
    if (t.in_msg) {
      txs.push([t.account, t.in_msg.hash]);
      messages.add(t.in_msg.hash);
    }
    for (const m of t.out_msgs) messages.add(m.hash);
  }
  const actions: [string, string][] = [];
  for (const a of entry.actions) for (const account of new Set(a.accounts ?? [])) actions.push([account, a.action_id]);
  return { txs, actions, messages: [...messages] };
}

/**
 * Stores a pending trace, replacing an earlier emulation of the same external, in one MULTI: the old
 * entries are removed (the delete script) and the new ones written with their expiry.
 */
export async function putPendingTrace(redis: Redis, keys: PendingKeys, entry: PendingTraceEntry, ttlMs: number, nowMs = Date.now()): Promise<void> {
  const norm = entry.trace.external_hash_norm;
  const tkey = keys.trace(norm);
  const index = traceIndex(entry);
  const keyTtl = ttlMs + REDIS_TTL_GRACE_MS;
  const fields: Record<string, string> = {
    [TRACE_FIELDS.trace]: JSON.stringify(entry.trace),
    [TRACE_FIELDS.actions]: JSON.stringify(entry.actions),
    [TRACE_FIELDS.index]: JSON.stringify(index),
  };
  for (const t of entry.transactions) if (t.in_msg) fields[`${TRACE_FIELDS.txPrefix}${t.in_msg.hash}`] = JSON.stringify(t);
  const m = redis.multi();
  m.eval(DELETE_PENDING_TRACE_LUA, 0, keys.prefix, norm);
  m.hset(tkey, fields);
  m.pexpire(tkey, keyTtl);
  const lts = new Map(entry.transactions.map((t) => [t.in_msg?.hash, t.lt]));
  for (const [account, inMsg] of index.txs) {
    m.zadd(keys.accountTxs(account), Number(lts.get(inMsg)), `${norm}:${inMsg}`);
    m.pexpire(keys.accountTxs(account), keyTtl);
  }
  for (const [account, actionId] of index.actions) {
    m.zadd(keys.accountActions(account), Number(entry.trace.start_lt), `${norm}:${actionId}`);
    m.pexpire(keys.accountActions(account), keyTtl);
  }
  for (const h of index.messages) m.set(keys.message(h), norm, 'PX', keyTtl);
  m.zadd(keys.expiry, nowMs + ttlMs, norm);
  const results = await m.exec();
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('Redis MULTI of a pending trace was discarded');
}

/** True when a pending trace of this external (by hash_norm) is stored. */
export async function hasPendingTrace(redis: Redis, keys: PendingKeys, hashNorm: string): Promise<boolean> {
  return (await redis.exists(keys.trace(hashNorm))) === 1;
}
