import type { Redis } from 'ioredis';
import { type PendingKeys, TRACE_FIELDS } from './layout.js';

/**
 * Lua body removing one pending trace and everything that points at it, given `prefix` and `norm`
 * (locals the callers define). The keys it touches are derived from the trace's `index`, so they
 * are not declared in KEYS: this needs a single Redis (or a cluster with every key in one slot).
 */
const DELETE_BODY = `
local tkey = prefix .. 'pending:trace:' .. norm
local idx = redis.call('HGET', tkey, '${TRACE_FIELDS.index}')
redis.call('ZREM', prefix .. 'pending:expiry', norm)
if not idx then return 0 end
local index = cjson.decode(idx)
for _, m in ipairs(index.txs) do redis.call('ZREM', prefix .. 'pending:account_txs:' .. m[1], norm .. ':' .. m[2]) end
for _, m in ipairs(index.actions) do redis.call('ZREM', prefix .. 'pending:account_actions:' .. m[1], norm .. ':' .. m[2]) end
for _, h in ipairs(index.messages) do
  local k = prefix .. 'pending:msg:' .. h
  if redis.call('GET', k) == norm then redis.call('DEL', k) end
end
redis.call('DEL', tkey)
return 1`;

/**
 * ARGV: prefix, a hash: the trace's hash_norm, or any message hash of it (the external's raw hash
 * included), resolved through \`pending:msg:\`. Returns 1 when a trace was deleted.
 */
export const DELETE_PENDING_TRACE_LUA = `local prefix = ARGV[1]
local norm = ARGV[2]
if redis.call('EXISTS', prefix .. 'pending:trace:' .. norm) == 0 then
  norm = redis.call('GET', prefix .. 'pending:msg:' .. ARGV[2]) or ARGV[2]
end
local function del()${DELETE_BODY}
end
return del()`;

/** ARGV: prefix, now (ms), max count. Deletes traces whose expiry passed; returns their hash_norms. */
export const SWEEP_EXPIRED_LUA = `local prefix = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', prefix .. 'pending:expiry', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local norm
local function del()${DELETE_BODY}
end
for _, n in ipairs(due) do norm = n; del() end
return due`;

/**
 * Removes the pending trace of an external and its index entries in one atomic step (a Lua script),
 * given the confirmed trace's `external_hash_norm ?? external_hash` (a message hash of the trace also
 * works). Call it once the watermark covers the confirmed trace: the API hides the pending one from
 * then on anyway, so a client never sees both, nor neither. Resolves true when there was one.
 */
export async function deletePendingTrace(redis: Redis, keys: PendingKeys, hash: string): Promise<boolean> {
  return (await redis.eval(DELETE_PENDING_TRACE_LUA, 0, keys.prefix, hash)) === 1;
}

/** Deletes up to `max` pending traces whose expiry passed; resolves their hash_norms (to count them). */
export async function sweepExpiredTraces(redis: Redis, keys: PendingKeys, nowMs: number, max = 500): Promise<string[]> {
  return (await redis.eval(SWEEP_EXPIRED_LUA, 0, keys.prefix, String(nowMs), String(max))) as string[];
}
