import type { AddressExtras } from '@tonstream/streaming';

/** What the store said of one address: its address book facts and the `metadata` entries it brings. */
export type AddressEntry = { facts: { domain: string | null; interfaces: readonly string[]; bounceable: boolean }; metadata: Readonly<Record<string, unknown>> };

export type ExtrasCacheOptions = {
  /** An entry older than this is read again when an event needs it (and still shown until then). */
  ttlMs: number;
  /** At most this many addresses are kept; the least recently stored go first. */
  maxEntries: number;
  now?: () => number;
};

/**
 * The streamer's memory of address facts and token metadata, by address: token contracts' metadata
 * rarely changes, so a block's lookup only asks the store for addresses it has no fresh entry of.
 * Stale entries are still shown while their refresh is under way or did not answer in time.
 */
export function createExtrasCache(o: ExtrasCacheOptions) {
  const now = o.now ?? Date.now;
  const entries = new Map<string, AddressEntry & { at: number }>();
  return {
    /** The addresses without an entry younger than the TTL. */
    stale(addresses: Iterable<string>): string[] {
      const t = now();
      return [...addresses].filter((a) => {
        const e = entries.get(a);
        return e === undefined || t - e.at >= o.ttlMs;
      });
    },
    put(address: string, entry: AddressEntry): void {
      entries.delete(address);
      entries.set(address, { ...entry, at: now() });
      for (const oldest of entries.keys()) {
        if (entries.size <= o.maxEntries) break;
        entries.delete(oldest);
      }
    },
    /** What is known of these addresses now, as events carry it (a snapshot: later changes do not reach it). */
    extras(addresses: Iterable<string>): AddressExtras {
      const book = new Map<string, AddressEntry['facts']>();
      const metadata = new Map<string, Readonly<Record<string, unknown>>>();
      for (const a of addresses) {
        const e = entries.get(a);
        if (!e) continue;
        book.set(a, e.facts);
        if (Object.keys(e.metadata).length > 0) metadata.set(a, e.metadata);
      }
      return { book, metadata };
    },
    get size() {
      return entries.size;
    },
  };
}

export type ExtrasCache = ReturnType<typeof createExtrasCache>;
