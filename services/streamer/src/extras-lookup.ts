import type { Logger } from '@tonstream/runtime';
import { metadataOfEach, readAddressFacts, type ReadScope, type Store, tokenMetadataOf } from '@tonstream/store';
import { createExtrasCache, type AddressEntry } from './extras-cache.js';

/** A lookup the store has not answered in this long is abandoned (the events went without it long ago). */
const QUERY_TIMEOUT_MS = 10_000;
/** Lookups under way at once; past this, events go with what the cache knows (a slow store is not piled on). */
const MAX_IN_FLIGHT = 2;
const ERROR_LOG_EVERY_MS = 30_000;

/** Reads the entries of some addresses (the store's, below; a test may pass its own). */
export type EntryReader = (addresses: string[], signal: AbortSignal) => Promise<Map<string, AddressEntry>>;

/**
 * Address facts and token metadata as the v3 API builds them (the store's `readAddressFacts`,
 * `tokenMetadataOf`), bounded by the watermark, each address's entry as it would be asked alone.
 */
export function storeEntryReader(store: Store, watermark: () => number | null): EntryReader {
  return async (addresses, signal) => {
    const scope: ReadScope = { watermark: watermark(), query: { signal, timeoutMs: QUERY_TIMEOUT_MS } };
    const facts = await readAddressFacts(store, scope, addresses);
    const metadata = await tokenMetadataOf(store, scope, [...facts].filter(([, f]) => f.token).map(([a]) => a));
    const brought = metadataOfEach(metadata, addresses);
    const out = new Map<string, AddressEntry>();
    for (const a of addresses) {
      const f = facts.get(a);
      out.set(a, { facts: { domain: f?.domain ?? null, interfaces: f?.interfaces ?? [], bounceable: f?.bounceable ?? false }, metadata: brought.get(a) ?? {} });
    }
    return out;
  };
}

export type ExtrasLookupOptions = { read: EntryReader; ttlMs: number; maxEntries: number; logger: Logger };

/**
 * The TTL cache and the store reads that fill it: `refresh(addresses)` reads the stale ones in one
 * batch (null when there is nothing to wait for), `extras(addresses)` is what is known now.
 */
export function createExtrasLookup(o: ExtrasLookupOptions) {
  const cache = createExtrasCache({ ttlMs: o.ttlMs, maxEntries: o.maxEntries });
  let inFlight = 0;
  let reads = 0;
  let failures = 0;
  let skipped = 0;
  let lastError: string | null = null;
  /** Duration of the last and the slowest answered read, ms. */
  let lastMs = 0;
  let maxMs = 0;
  let loggedAt = Number.NEGATIVE_INFINITY;
  return {
    refresh(addresses: Iterable<string>): Promise<void> | null {
      const stale = cache.stale(addresses);
      if (stale.length === 0) return null;
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped += 1;
        return null;
      }
      inFlight += 1;
      reads += 1;
      const started = performance.now();
      return o
        .read(stale, AbortSignal.timeout(QUERY_TIMEOUT_MS))
        .then((found) => {
          for (const [a, entry] of found) cache.put(a, entry);
          lastError = null;
          lastMs = Math.round(performance.now() - started);
          maxMs = Math.max(maxMs, lastMs);
        })
        .catch((err: unknown) => {
          failures += 1;
          lastError = (err as Error).message;
          if (Date.now() - loggedAt >= ERROR_LOG_EVERY_MS) {
            loggedAt = Date.now();
            o.logger.warn('address book / metadata lookup failed', { reason: lastError, addresses: stale.length });
          }
        })
        .finally(() => {
          inFlight -= 1;
        });
    },
    extras: (addresses: Iterable<string>) => cache.extras(addresses),
    status() {
      return { cached: cache.size, in_flight: inFlight, reads, failures, skipped, last_error: lastError, last_read_ms: lastMs, max_read_ms: maxMs };
    },
  };
}

export type ExtrasLookup = ReturnType<typeof createExtrasLookup>;
