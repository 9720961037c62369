import { randomBytes } from 'node:crypto';
import { rethrowBugs } from '@tonstream/errors';
import type { Logger } from '@tonstream/runtime';
import type { ConnectionLimits } from './limits.js';

/** A connection's slot under its key's limit, or the refusal with how many are open. */
export type Slot = { ok: true; release: () => void } | { ok: false; active: number };

/** Where connections are counted right now: across every streamer, or (Redis away) in this process only. */
export type CountMode = { shared: true } | { shared: false; reason: string };

export type ConnectionCounter = {
  /** Takes a slot, or says how many are open when the limit is reached. */
  acquire(l: ConnectionLimits): Promise<Slot>;
  mode(): CountMode;
  close(): Promise<void>;
};

/** The open slots of one process: limiting key -> connection ids. */
type OpenSlots = Map<string, Set<string>>;

function add(slots: OpenSlots, key: string, id: string): void {
  let ids = slots.get(key);
  if (!ids) slots.set(key, (ids = new Set()));
  ids.add(id);
}

function remove(slots: OpenSlots, key: string, id: string): void {
  const ids = slots.get(key);
  if (!ids) return;
  ids.delete(id);
  if (ids.size === 0) slots.delete(key);
}

/** The refusal a count of `open` connections gets under `limit` (-1 unlimited), or null when one more fits. */
function overLimit(open: number, limit: number): { ok: false; active: number } | null {
  return limit >= 0 && open >= limit ? { ok: false, active: open } : null;
}

/** Open connections per limiting key, in this process (as toncenter's: per node, §11.10). */
export function createConnectionCounter(): ConnectionCounter {
  const open: OpenSlots = new Map();
  let n = 0;
  return {
    async acquire(l) {
      const refusal = overLimit(open.get(l.key)?.size ?? 0, l.maxConnections);
      if (refusal) return refusal;
      const id = String(++n);
      add(open, l.key, id);
      return { ok: true, release: () => remove(open, l.key, id) };
    },
    mode: () => ({ shared: false, reason: 'STREAMER_CONNECTION_COUNT=process' }),
    close: async () => undefined,
  };
}

/** The count every streamer shares (redis-slots.ts): slots expire unless refreshed, so a dead process's stop counting. */
export type SharedSlots = {
  /** Whether commands can be sent now (false: they would fail at once). */
  ready(): boolean;
  /** Drops the key's expired slots, then takes one for `id` unless `limit` (-1: none) are open; `active`: open after it. */
  take(key: string, id: string, limit: number, ttlMs: number): Promise<{ ok: boolean; active: number }>;
  /**
   * Every slot of `open` expires `ttlMs` from now (put back if the store lost it); the slots of `freed`
   * are removed. With nothing to send it still asks the store something: its answer ends a failure.
   */
  refresh(open: ReadonlyMap<string, ReadonlySet<string>>, freed: ReadonlyMap<string, ReadonlySet<string>>, ttlMs: number): Promise<void>;
  free(key: string, id: string): Promise<void>;
  close(): Promise<void>;
};

/** How long a slot outlives its process's last refresh: a crashed streamer's connections count this long. */
export const SLOT_TTL_MS = 30_000;

/**
 * Open connections per limiting key across every streamer sharing `slots` (Redis). Each process
 * refreshes its open slots every third of the TTL. While the shared count cannot answer, connections
 * are counted in this process under the same limits (every open one of its own, however admitted),
 * as a key Redis cannot verify is admitted as anonymous rather than refused: Redis away never refuses
 * a client the limits would admit. Slots taken meanwhile are put in the shared count by the next refresh
 * that reaches it, and releases that failed are sent again with it.
 */
export function createSharedConnectionCounter(o: { slots: SharedSlots; logger: Logger; ttlMs?: number; processId?: string }): ConnectionCounter {
  const ttlMs = o.ttlMs ?? SLOT_TTL_MS;
  const processId = o.processId ?? randomBytes(6).toString('hex');
  const open: OpenSlots = new Map();
  /** Released slots the shared count may still hold (their removal failed, or a failed take may have landed). */
  const unfreed: OpenSlots = new Map();
  let n = 0;
  let failure: string | null = null;
  let refreshing = false;

  const failed = (err: unknown) => {
    rethrowBugs(err);
    const reason = `Redis failing (${err instanceof Error ? err.message : String(err)})`;
    if (failure === null) o.logger.warn('connection limits counted per process until Redis answers again', { reason });
    failure = reason;
  };
  const answered = () => {
    if (failure !== null) o.logger.info('connection limits shared through Redis again');
    failure = null;
  };

  const free = (key: string, id: string) => {
    if (!o.slots.ready()) return add(unfreed, key, id);
    o.slots.free(key, id).then(answered, (err: unknown) => {
      add(unfreed, key, id);
      failed(err);
    });
  };

  async function refresh(): Promise<void> {
    if (refreshing || !o.slots.ready() || (open.size === 0 && unfreed.size === 0 && failure === null)) return;
    refreshing = true;
    const freeing = new Map([...unfreed].map(([key, ids]) => [key, new Set(ids)]));
    unfreed.clear();
    try {
      await o.slots.refresh(open, freeing, ttlMs);
      answered();
    } catch (err) {
      for (const [key, ids] of freeing) for (const id of ids) add(unfreed, key, id);
      failed(err);
    } finally {
      refreshing = false;
    }
  }
  const timer = setInterval(() => void refresh(), Math.max(1, Math.floor(ttlMs / 3)));
  timer.unref();

  return {
    async acquire(l) {
      const id = `${processId}:${++n}`;
      let verdict: { ok: boolean; active: number } | null = null;
      if (o.slots.ready()) {
        try {
          verdict = await o.slots.take(l.key, id, l.maxConnections, ttlMs);
          answered();
        } catch (err) {
          failed(err);
        }
      }
      if (verdict === null) {
        verdict = overLimit(open.get(l.key)?.size ?? 0, l.maxConnections) ?? { ok: true, active: 0 };
        // A take that failed may still have landed: a refused connection's slot is freed by the next refresh.
        if (!verdict.ok) add(unfreed, l.key, id);
      }
      if (!verdict.ok) return { ok: false, active: verdict.active };
      add(open, l.key, id);
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          remove(open, l.key, id);
          free(l.key, id);
        },
      };
    },
    mode: () => (failure !== null ? { shared: false, reason: failure } : o.slots.ready() ? { shared: true } : { shared: false, reason: 'Redis unreachable' }),
    async close() {
      clearInterval(timer);
      await o.slots.close();
    },
  };
}
