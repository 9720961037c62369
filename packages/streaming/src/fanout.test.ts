import type { AccountStateRecord } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { parseCursor } from './cursor.js';
import type { BlockEvent } from './events.js';
import { createFanout, type Client } from './fanout.js';
import { applySubscription, emptySubscription, parseSubscription } from './subscription.js';

const A = `0:${'AA'.repeat(32)}`;
const B = `0:${'BB'.repeat(32)}`;
const state = (account: string, lt: string): BlockEvent => ({
  type: 'account_state_change',
  account,
  state: { account, account_state_hash: 'h', balance: lt, extra_currencies: {}, status: 'active', frozen_hash: null, code_hash: null, data_hash: null, code_boc: null, data_boc: null, last_trans_lt: lt, last_trans_hash: 'x', mc_block_seqno: 1, gen_utime: 1 } as AccountStateRecord,
});

function client(id: number, minFinality = 'confirmed'): Client & { got: string[] } {
  const got: string[] = [];
  const r = parseSubscription({ types: ['account_state_change'], addresses: [A], min_finality: minFinality }, 'ws', 10);
  if (!r.ok) throw new Error(r.error);
  return { id, sub: applySubscription(emptySubscription(), r.value), floor: null, got, deliver: (_json, cursor) => got.push(cursor) };
}

describe('createFanout()', () => {
  it('flushes each client once after a step, with every notification of the step already delivered', () => {
    const f = createFanout({ retainMcBlocks: 100, retainMaxBytes: 1e9 });
    const trail: string[] = [];
    const clients = [1, 2].map((id) => {
      const c = client(id);
      c.deliver = (_json, cursor) => trail.push(`${id}:${cursor}`);
      c.flush = () => trail.push(`${id}:flush`);
      f.add(c);
      f.setSubscription(c, c.sub);
      return c;
    });
    f.emit('confirmed', 5, [state(A, '51'), state(B, '52'), state(A, '53')]);
    f.emit('confirmed', 6, [state(B, '61')]);
    expect(trail).toEqual(['1:c5.0f4', '2:c5.0f4', '1:c5.2f4', '2:c5.2f4', '1:flush', '2:flush']);
    f.remove(clients[0]);
  });

  it('delivers by address and finality, and a resumed client gets exactly what it missed', () => {
    const f = createFanout({ retainMcBlocks: 100, retainMaxBytes: 1e9 });
    const live = client(1);
    f.add(live);
    f.setSubscription(live, live.sub);
    const emit = (stage: 'confirmed' | 'finalized', mc: number) => f.emit(stage, mc, [state(A, `${mc}1`), state(B, `${mc}2`), state(A, `${mc}3`)]);
    emit('confirmed', 5);
    emit('confirmed', 6);
    emit('finalized', 5);
    emit('confirmed', 7);
    emit('finalized', 6);
    expect(live.got).toEqual(['c5.0f4', 'c5.2f4', 'c6.0f4', 'c6.2f4', 'f5.0c6', 'f5.2c6', 'c7.0f5', 'c7.2f5', 'f6.0c7', 'f6.2c7']);
    for (let cut = 0; cut < live.got.length; cut++) {
      const back = client(2);
      back.floor = parseCursor(live.got[cut]);
      expect(f.canResume(back.floor!)).toEqual({ ok: true });
      f.add(back);
      f.setSubscription(back, back.sub);
      f.beginReplay(back);
      expect(f.replayNext(back, Number.POSITIVE_INFINITY)).toBe('live');
      expect(back.got, `after ${live.got[cut]}`).toEqual(live.got.slice(cut + 1));
      f.remove(back);
    }
    const finalOnly = client(3, 'finalized');
    f.add(finalOnly);
    f.setSubscription(finalOnly, finalOnly.sub);
    emit('confirmed', 8);
    emit('finalized', 7);
    expect(finalOnly.got).toEqual(['f7.0c8', 'f7.2c8']);
  });

  it('replays in small pieces while new blocks arrive: the same events, in order, no duplicate', () => {
    const f = createFanout({ retainMcBlocks: 100, retainMaxBytes: 1e9 });
    const live = client(1);
    f.add(live);
    f.setSubscription(live, live.sub);
    const emit = (mc: number) => f.emit('confirmed', mc, [state(A, `${mc}1`), state(A, `${mc}2`)]);
    for (let mc = 1; mc <= 5; mc++) emit(mc);
    const back = client(2);
    back.floor = parseCursor(live.got[1])!;
    f.add(back);
    f.setSubscription(back, back.sub);
    f.beginReplay(back);
    // One event per call (any positive budget sends at least one), with live blocks emitted in between.
    let progress = f.replayNext(back, 1);
    for (let mc = 6; progress === 'more'; mc++) {
      if (mc <= 9) emit(mc);
      progress = f.replayNext(back, 1);
    }
    expect(progress).toBe('live');
    emit(10);
    expect(back.got).toEqual(live.got.slice(2));
    expect(back.got.at(-1)).toBe('c10.1f0');
  });

  it('says lost when the steps a replaying client still needs are evicted', () => {
    const f = createFanout({ retainMcBlocks: 3, retainMaxBytes: 1e9 });
    for (let mc = 1; mc <= 3; mc++) f.emit('confirmed', mc, [state(A, '1')]);
    const back = client(2);
    back.floor = parseCursor('c1.0f0')!;
    f.add(back);
    f.setSubscription(back, back.sub);
    f.beginReplay(back);
    expect(f.replayNext(back, 1)).toBe('more');
    for (let mc = 4; mc <= 8; mc++) f.emit('confirmed', mc, [state(A, '1')]);
    expect(f.replayNext(back, 1)).toBe('lost');
    expect(back.got).toEqual(['c2.0f0']);
  });

  it('refuses a cursor older than what is retained', () => {
    const f = createFanout({ retainMcBlocks: 2, retainMaxBytes: 1e9 });
    for (let mc = 10; mc < 15; mc++) f.emit('confirmed', mc, [state(A, '1')]);
    expect(f.canResume(parseCursor('c10.0f9')!)).toMatchObject({ ok: false, error: expect.stringMatching(/^cursor too old/) });
    // Blocks 13 and 14 are retained, and no finalized event was ever emitted: nothing is missed.
    expect(f.canResume(parseCursor('c13.0f9')!)).toEqual({ ok: true });
    expect(f.canResume(parseCursor('c12.0f9')!)).toMatchObject({ ok: false });
  });
});
