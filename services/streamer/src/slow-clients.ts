import type { Outbox } from './outbox.js';

/** Why a connection was cut by the server; the label of `tonstream_streamer_dropped_clients_total`. */
export type DropKind = 'unsent_bytes' | 'unsent_age' | 'replay_lost' | 'key_revoked';

/** A connection as the slow-client check sees it. */
export type Watched = { outbox: Outbox; drop(kind: DropKind, reason: string): void };

/**
 * Drops connections whose oldest unsent data is older than `maxUnsentMs`. The byte bound
 * (STREAMER_MAX_BUFFERED_BYTES) is checked on every write; this catches a client that stopped reading
 * while its stream is thin, which would otherwise stay under the byte bound for minutes while its
 * data and its slot are held.
 */
export function createSlowClientGuard(o: { maxUnsentMs: number; now?: () => number }) {
  const now = o.now ?? Date.now;
  const watched = new Set<Watched>();
  // A quarter of the limit: a client is cut within 1.25x the limit, at a cost of one pass over the connections.
  const timer = setInterval(sweep, Math.max(50, Math.floor(o.maxUnsentMs / 4)));
  timer.unref();

  function sweep() {
    const t = now();
    for (const w of watched) {
      const age = w.outbox.unsentAgeMs(t);
      if (age > o.maxUnsentMs) w.drop('unsent_age', `slow consumer: data unsent for ${age} ms (limit ${o.maxUnsentMs} ms)`);
    }
  }

  return {
    watch(w: Watched): void {
      watched.add(w);
    },
    unwatch(w: Watched): void {
      watched.delete(w);
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}

export type SlowClientGuard = ReturnType<typeof createSlowClientGuard>;
