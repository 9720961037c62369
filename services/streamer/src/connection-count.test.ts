import { createLogger } from '@tonstream/runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConnectionCounter, createSharedConnectionCounter, type SharedSlots, type Slot } from './connection-count.js';
import type { ConnectionLimits } from './limits.js';

const logger = createLogger({ level: 'error' });
const limits = (key: string, maxConnections: number): ConnectionLimits => ({ key, maxConnections, maxAddresses: 10 });
const released = (slot: Slot) => {
  if (!slot.ok) throw new Error('refused');
  return slot.release;
};

/** A shared count as Redis keeps it (no expiry), that can be taken away and made to fail. */
function fakeSlots() {
  const sets = new Map<string, Set<string>>();
  const state = { ready: true, failing: false, refreshed: [] as Map<string, Set<string>>[] };
  const check = () => {
    if (state.failing) throw new Error('Command timed out');
  };
  const slots: SharedSlots = {
    ready: () => state.ready,
    async take(key, id, limit) {
      check();
      const set = sets.get(key) ?? new Set();
      sets.set(key, set);
      if (limit >= 0 && set.size >= limit) return { ok: false, active: set.size };
      set.add(id);
      return { ok: true, active: set.size };
    },
    async refresh(open, freed) {
      check();
      state.refreshed.push(new Map([...open].map(([k, ids]) => [k, new Set(ids)])));
      for (const [key, ids] of open) for (const id of ids) sets.set(key, (sets.get(key) ?? new Set()).add(id));
      for (const [key, ids] of freed) for (const id of ids) sets.get(key)?.delete(id);
    },
    async free(key, id) {
      check();
      sets.get(key)?.delete(id);
    },
    close: async () => undefined,
  };
  return { slots, sets, state, size: (key: string) => sets.get(key)?.size ?? 0 };
}

afterEach(() => void vi.useRealTimers());

describe('createConnectionCounter (one process)', () => {
  it('refuses at the limit naming the open connections; a release frees once; -1 is unlimited', async () => {
    const c = createConnectionCounter();
    const first = released(await c.acquire(limits('ip:a', 2)));
    released(await c.acquire(limits('ip:a', 2)));
    expect(await c.acquire(limits('ip:a', 2))).toEqual({ ok: false, active: 2 });
    expect((await c.acquire(limits('ip:b', 2))).ok).toBe(true);
    first();
    first();
    expect((await c.acquire(limits('ip:a', 2))).ok).toBe(true);
    expect(await c.acquire(limits('ip:a', 2))).toEqual({ ok: false, active: 2 });
    for (let i = 0; i < 50; i++) expect((await c.acquire(limits('gw:x', -1))).ok).toBe(true);
    expect(await c.acquire(limits('gw:x', 0))).toEqual({ ok: false, active: 50 });
  });
});

describe('createSharedConnectionCounter', () => {
  it('takes and frees slots in the shared count, which decides (with its own count of open connections)', async () => {
    const f = fakeSlots();
    f.sets.set('key:k', new Set(['other:1', 'other:2']));
    const c = createSharedConnectionCounter({ slots: f.slots, logger, processId: 'p' });
    const release = released(await c.acquire(limits('key:k', 3)));
    expect([...f.sets.get('key:k')!]).toEqual(['other:1', 'other:2', 'p:1']);
    expect(await c.acquire(limits('key:k', 3))).toEqual({ ok: false, active: 3 });
    release();
    release();
    await vi.waitFor(() => expect(f.size('key:k')).toBe(2));
    expect(c.mode()).toEqual({ shared: true });
    await c.close();
  });

  it('while the shared count is unreachable or failing, counts in this process every open connection of its own, and admits', async () => {
    const f = fakeSlots();
    const c = createSharedConnectionCounter({ slots: f.slots, logger, processId: 'p' });
    released(await c.acquire(limits('ip:a', 2)));
    f.state.ready = false;
    expect(c.mode()).toEqual({ shared: false, reason: 'Redis unreachable' });
    // One of this process's connections is open: one more fits under 2, however many other processes hold.
    f.sets.get('ip:a')!.add('other:1');
    released(await c.acquire(limits('ip:a', 2)));
    expect(await c.acquire(limits('ip:a', 2))).toEqual({ ok: false, active: 2 });
    f.state.ready = true;
    f.state.failing = true;
    expect(await c.acquire(limits('ip:a', 2))).toEqual({ ok: false, active: 2 });
    expect((await c.acquire(limits('ip:b', 1))).ok).toBe(true);
    expect(c.mode()).toMatchObject({ shared: false, reason: 'Redis failing (Command timed out)' });
    await c.close();
  });

  it('the refresh keeps open slots alive, puts back those taken while Redis was away, and frees what could not be freed', async () => {
    vi.useFakeTimers();
    const f = fakeSlots();
    const c = createSharedConnectionCounter({ slots: f.slots, logger, processId: 'p', ttlMs: 3_000 });
    const kept = released(await c.acquire(limits('ip:a', 5)));
    const gone = released(await c.acquire(limits('ip:a', 5)));
    f.state.ready = false;
    released(await c.acquire(limits('ip:b', 5))); // counted here only
    gone(); // cannot reach the shared count
    expect(f.sets.get('ip:a')).toEqual(new Set(['p:1', 'p:2']));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(f.state.refreshed).toEqual([]); // nothing sent while Redis is away
    f.state.ready = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(f.state.refreshed.at(-1)).toEqual(new Map([['ip:a', new Set(['p:1'])], ['ip:b', new Set(['p:3'])]]));
    expect(f.sets.get('ip:a')).toEqual(new Set(['p:1']));
    expect(f.sets.get('ip:b')).toEqual(new Set(['p:3']));
    expect(c.mode()).toEqual({ shared: true });
    kept();
    await vi.advanceTimersByTimeAsync(0);
    expect(f.size('ip:a')).toBe(0);
    await c.close();
  });

  it('a refusal after a take that failed frees the slot the take may have left; a failure ends with the next answer', async () => {
    vi.useFakeTimers();
    const f = fakeSlots();
    const c = createSharedConnectionCounter({ slots: f.slots, logger, processId: 'p', ttlMs: 3_000 });
    f.state.failing = true;
    expect((await c.acquire(limits('ip:a', 0))).ok).toBe(false);
    expect(c.mode().shared).toBe(false);
    f.state.failing = false;
    f.sets.set('ip:a', new Set(['p:1'])); // the take landed after all
    await vi.advanceTimersByTimeAsync(1_000);
    expect(f.size('ip:a')).toBe(0);
    expect(c.mode()).toEqual({ shared: true });
    await c.close();
  });
});
