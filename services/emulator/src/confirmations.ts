import { deletePendingTrace, type PendingKeys, readPendingTraces, readTraces, readWatermarks, type Store } from '@tonstream/store';
import type { Redis } from 'ioredis';

/** Pending traces looked at per pass (the oldest first: they are the likeliest to be confirmed). */
const BATCH = 200;

/**
 * Removes the pending traces whose confirmed trace the index holds complete under the watermark
 * (issue 13: "replaced when confirmed"). The API already hides such a trace (v3/pending.ts), so a
 * client never sees both; deleting only once the confirmed one is served means never neither. What
 * the TTL sweep then removes never landed, which is what its counter says. Resolves the hash_norms
 * removed.
 */
export async function removeConfirmedTraces(redis: Redis, keys: PendingKeys, store: Store): Promise<string[]> {
  const norms = await redis.zrange(keys.expiry, '0', String(BATCH - 1));
  if (norms.length === 0) return [];
  // The API serves a trace under both watermarks: the same bound here.
  const { index: watermark, traces } = await readWatermarks(store);
  if (watermark === null || traces === null) return [];
  const pending = await readPendingTraces(redis, keys, { hashes: norms }, BATCH);
  const normOf = new Map<string, string>();
  for (const p of pending) {
    const external = (p.trace as { external_hash?: unknown }).external_hash;
    if (typeof external === 'string') normOf.set(external, p.hashNorm);
  }
  if (normOf.size === 0) return [];
  const confirmed = await readTraces(store, { watermark: watermark.mc_seqno, traces: traces.mc_seqno }, { msgHashes: [...normOf.keys()] }, { limit: normOf.size * 2, offset: 0, sort: 'desc', order: 'lt' });
  const removed: string[] = [];
  for (const t of confirmed) {
    const norm = t.external_hash === null ? undefined : normOf.get(t.external_hash);
    if (norm === undefined || t.trace_info.trace_state !== 'complete') continue;
    if (await deletePendingTrace(redis, keys, norm)) removed.push(norm);
  }
  return removed;
}
