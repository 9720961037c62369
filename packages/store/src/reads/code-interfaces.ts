import type { Store } from '../client.js';
import { strList } from '../sql.js';
import { pointRead, type ReadScope } from './scope.js';

export type CodeInterfaces = { interfaces: string[]; methods: number[] };

/**
 * What the writer detected for a code (`contract_interfaces`) depends on the code alone, so an answer
 * is kept per store for a while: an address book then costs no query for the codes it has seen (a
 * handful of wallet and token codes cover most accounts). Entries expire so that a reindex with a newer
 * detector shows within a minute. A code without a row is kept as such for a second: its row is
 * written in the batch of the first state that runs it, so a miss is a race with that batch or a code
 * no detector knows (then asked again per request, it cost a query on every page).
 */
const KEEP_MS = 60_000;
const MISS_KEEP_MS = 1_000;
const MAX_ENTRIES = 10_000;
type Kept = { at: number; value: CodeInterfaces | null };
const cacheOf = new WeakMap<Store, Map<string, Kept>>();

/** Interfaces and get-method ids of code hashes; codes without a row are absent. */
export async function readCodeInterfaces(store: Store, scope: ReadScope, codeHashes: readonly string[], now = Date.now()): Promise<Map<string, CodeInterfaces>> {
  let cache = cacheOf.get(store);
  if (!cache) cacheOf.set(store, (cache = new Map()));
  const found = new Map<string, CodeInterfaces>();
  const missing: string[] = [];
  for (const code of new Set(codeHashes)) {
    const kept = cache.get(code);
    if (!kept || now - kept.at >= (kept.value ? KEEP_MS : MISS_KEEP_MS)) missing.push(code);
    else if (kept.value) found.set(code, kept.value);
  }
  if (missing.length === 0) return found;
  const got = await store.query<{ code_hash: string; interfaces: string[]; methods: number[] }>(
    `SELECT code_hash, interfaces, methods FROM ${store.database}.contract_interfaces WHERE code_hash IN ${strList(missing)} LIMIT 1 BY code_hash`,
    pointRead(scope),
  );
  if (cache.size + missing.length > MAX_ENTRIES) cache.clear();
  for (const code of missing) cache.set(code, { at: now, value: null });
  for (const r of got) {
    const value = { interfaces: r.interfaces, methods: r.methods.map(Number) };
    found.set(r.code_hash, value);
    cache.set(r.code_hash, { at: now, value });
  }
  return found;
}
