import type { AccountStateRecord } from '@tonstream/records';
import { applySubscription, createFanout, emptySubscription, parseSubscription, type AddressExtras, type BlockEvent, type Client } from '@tonstream/streaming';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEmitQueue, type ExtrasSource } from './emit-queue.js';
import { createExtrasCache } from './extras-cache.js';

const WALLET = `0:${'AA'.repeat(32)}`;
const OWNER = `0:${'BB'.repeat(32)}`;
const MASTER = `0:${'CC'.repeat(32)}`;
const state = { account: WALLET, account_state_hash: 'h', balance: '1', extra_currencies: {}, status: 'active', frozen_hash: null, code_hash: 'c', data_hash: 'd', code_boc: null, data_boc: null, last_trans_lt: '7', last_trans_hash: 'x', mc_block_seqno: 1, gen_utime: 1 } as AccountStateRecord;
const jettonsChange = (): BlockEvent => ({ type: 'jettons_change', account: WALLET, wallet: { owner: OWNER, jetton: MASTER, balance: '250' }, state });
const masterMeta = { is_indexed: true, token_info: [{ type: 'jetton_masters', name: 'Coin' }] };

/** A lookup whose store answers when the test says so; what it answered is then known. */
function fakeLookup() {
  const cache = createExtrasCache({ ttlMs: 60_000, maxEntries: 100 });
  const asked: string[][] = [];
  let answer: (() => void) | undefined;
  const lookup: ExtrasSource = {
    refresh(addresses) {
      const stale = cache.stale(addresses);
      if (stale.length === 0) return null;
      asked.push(stale.sort());
      return new Promise<void>((resolve) => {
        answer = () => {
          cache.put(MASTER, { facts: { domain: null, interfaces: ['jetton_master'] }, metadata: { [MASTER]: masterMeta } });
          for (const a of stale) if (a !== MASTER) cache.put(a, { facts: { domain: null, interfaces: [] }, metadata: {} });
          resolve();
        };
      });
    },
    extras: (addresses) => cache.extras(addresses),
  };
  return { lookup, asked, answer: () => answer?.() };
}

function subscribed(f: ReturnType<typeof createFanout>, id: number, body: Record<string, unknown>) {
  const got: Record<string, unknown>[] = [];
  const r = parseSubscription({ types: ['jettons_change'], addresses: [OWNER], min_finality: 'confirmed', ...body }, 'ws', 10);
  if (!r.ok) throw new Error(r.error);
  const c: Client = { id, sub: applySubscription(emptySubscription(), r.value), floor: null, deliver: (json) => got.push(JSON.parse(json) as Record<string, unknown>) };
  f.add(c);
  f.setSubscription(c, c.sub);
  return got;
}

describe('createEmitQueue()', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('without a client asking for extras, emits at once and reads nothing', () => {
    const f = createFanout({ retainMcBlocks: 10, retainMaxBytes: 1e9 });
    const got = subscribed(f, 1, {});
    const { lookup, asked } = fakeLookup();
    const q = createEmitQueue({ fanout: f, lookup, waitMs: 200 });
    q.emit('confirmed', 1, [jettonsChange()]);
    expect(got).toHaveLength(1);
    expect(asked).toEqual([]);
    expect('metadata' in got[0]).toBe(false);
  });

  it('waits for the lookup of a block some client asked extras for, then every matching client gets its view', async () => {
    const f = createFanout({ retainMcBlocks: 10, retainMaxBytes: 1e9 });
    const plain = subscribed(f, 1, {});
    const asking = subscribed(f, 2, { include_address_book: true, include_metadata: true });
    const { lookup, asked, answer } = fakeLookup();
    const q = createEmitQueue({ fanout: f, lookup, waitMs: 200 });
    q.emit('confirmed', 1, [jettonsChange()]);
    q.emit('confirmed', 2, [jettonsChange()]);
    expect(asked).toEqual([[WALLET, OWNER, MASTER].sort()]);
    expect(plain).toHaveLength(0);
    answer();
    await vi.advanceTimersByTimeAsync(0);
    // Both blocks went once the store answered; the second needed no read (its addresses are cached).
    expect(asked).toHaveLength(1);
    expect(plain).toHaveLength(2);
    expect(asking).toHaveLength(2);
    expect(asking[0].metadata).toEqual({ [MASTER]: masterMeta });
    expect((asking[0].address_book as Record<string, { interfaces: string[] }>)[MASTER].interfaces).toEqual(['jetton_master']);
    expect('metadata' in plain[0]).toBe(false);
    expect(q.status()).toMatchObject({ queued: 0, late: 0 });
  });

  it('a store that does not answer holds the stream waitMs at most: the events go with what is known, in order', async () => {
    const f = createFanout({ retainMcBlocks: 10, retainMaxBytes: 1e9 });
    const asking = subscribed(f, 2, { include_metadata: true });
    const { lookup } = fakeLookup();
    const q = createEmitQueue({ fanout: f, lookup, waitMs: 200 });
    q.emit('confirmed', 1, [jettonsChange()]);
    q.invalidate('nothing-open');
    q.emit('finalized', 1, [jettonsChange()]);
    await vi.advanceTimersByTimeAsync(199);
    expect(asking).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(asking.map((n) => [n.finality, n.metadata])).toEqual([['confirmed', {}]]);
    // Nothing was learnt: the finalized step starts its own lookup and waits its own bound.
    await vi.advanceTimersByTimeAsync(200);
    expect(asking.map((n) => n.finality)).toEqual(['confirmed', 'finalized']);
    expect(q.status()).toMatchObject({ queued: 0, late: 2 });
  });
});

describe('createExtrasCache()', () => {
  it('stale after the TTL, least recently stored evicted first, snapshots unaffected by later puts', () => {
    let t = 0;
    const c = createExtrasCache({ ttlMs: 100, maxEntries: 2, now: () => t });
    const entry = (i: string) => ({ facts: { domain: null, interfaces: [i] }, metadata: {} });
    c.put(WALLET, entry('w'));
    c.put(OWNER, entry('o'));
    expect(c.stale([WALLET, OWNER, MASTER])).toEqual([MASTER]);
    const before: AddressExtras = c.extras([WALLET, OWNER]);
    t = 100;
    expect(c.stale([WALLET, OWNER])).toEqual([WALLET, OWNER]);
    c.put(MASTER, entry('m'));
    expect(c.size).toBe(2);
    expect(c.extras([WALLET, OWNER, MASTER]).book).toEqual(new Map([[OWNER, entry('o').facts], [MASTER, entry('m').facts]]));
    expect(before.book.get(WALLET)).toEqual(entry('w').facts);
  });
});
