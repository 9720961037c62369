import type { Store } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { createIndexState } from './index-state.js';
import { higherWatermarks, type WatermarkFloor, type Watermarks } from './watermark-floor.js';

/** A store whose watermark tables hold `current` (as `readWatermarks` queries them), counting the reads. */
function fakeStore(initial: Watermarks) {
  const state = { current: initial, reads: 0, failing: false };
  const store = {
    database: 'db',
    async query() {
      state.reads += 1;
      if (state.failing) throw new Error('ClickHouse unreachable');
      const { index, traces } = state.current;
      return [...(index ? [{ of: 'index', ...index }] : []), ...(traces ? [{ of: 'traces', mc_seqno: traces.mc_seqno, gen_utime: 0 }] : [])];
    },
  } as unknown as Store;
  return { store, state };
}

/** A shared floor in memory, as Redis keeps it; `failing`: every raise fails. */
function fakeFloor(initial: Watermarks = { index: null, traces: null }) {
  const state = { floor: initial, failing: false, raised: [] as Watermarks[] };
  const floor: WatermarkFloor = {
    async raise(seen) {
      if (state.failing) throw new Error('Connection is closed.');
      state.raised.push(seen);
      return (state.floor = higherWatermarks(state.floor, seen));
    },
  };
  return { floor, state };
}

const w = (index: number | null, traces: number | null): Watermarks => ({ index: index === null ? null : { mc_seqno: index, gen_utime: 1000 + index }, traces: traces === null ? null : { mc_seqno: traces } });

describe('createIndexState', () => {
  it('reuses one read for 250 ms; a failed read is not kept', async () => {
    const { store, state } = fakeStore(w(10, 5));
    let t = 0;
    const index = createIndexState(store, { now: () => t });
    expect(await index.watermark()).toEqual({ mc_seqno: 10, gen_utime: 1010 });
    expect(await index.traces()).toEqual({ mc_seqno: 5 });
    t = 250;
    state.current = w(11, 6);
    expect(await index.watermark()).toEqual({ mc_seqno: 10, gen_utime: 1010 });
    expect(state.reads).toBe(1);
    t = 251;
    state.failing = true;
    await expect(index.watermark()).rejects.toThrow('ClickHouse unreachable');
    state.failing = false;
    expect(await index.watermark()).toEqual({ mc_seqno: 11, gen_utime: 1011 });
    expect(state.reads).toBe(3);
  });

  it('never steps back from what this process served, index and traces each on its own', async () => {
    const { store, state } = fakeStore(w(null, null));
    let t = 0;
    const index = createIndexState(store, { now: () => (t += 1_000) });
    expect(await index.watermark()).toBeNull();
    state.current = w(20, 8);
    expect(await index.watermark()).toEqual({ mc_seqno: 20, gen_utime: 1020 });
    // Another replica: its index watermark trails, its traces watermark leads.
    state.current = w(18, 9);
    expect(await index.watermark()).toEqual({ mc_seqno: 20, gen_utime: 1020 });
    expect(await index.traces()).toEqual({ mc_seqno: 9 });
    state.current = w(null, null);
    expect([await index.watermark(), await index.traces()]).toEqual([{ mc_seqno: 20, gen_utime: 1020 }, { mc_seqno: 9 }]);
  });

  it('serves the shared floor where it is higher and raises it with what it read', async () => {
    const { store, state } = fakeStore(w(30, 12));
    const shared = fakeFloor(w(33, 10));
    let t = 0;
    const index = createIndexState(store, { floor: shared.floor, now: () => t });
    expect([await index.watermark(), await index.traces()]).toEqual([{ mc_seqno: 33, gen_utime: 1033 }, { mc_seqno: 12 }]);
    expect(shared.state.raised).toEqual([w(30, 12)]);
    expect(shared.state.floor).toEqual(w(33, 12));
    t += 1_000;
    state.current = w(35, 12);
    expect(await index.watermark()).toEqual({ mc_seqno: 35, gen_utime: 1035 });
    expect(shared.state.floor).toEqual(w(35, 12));
  });

  it('a floor that fails is left out: no error, and the process\'s own maximum holds', async () => {
    const { store, state } = fakeStore(w(40, 20));
    const shared = fakeFloor(w(44, 20));
    let t = 0;
    const index = createIndexState(store, { floor: shared.floor, now: () => (t += 1_000) });
    expect(await index.watermark()).toEqual({ mc_seqno: 44, gen_utime: 1044 });
    shared.state.failing = true;
    state.current = w(41, 21);
    expect([await index.watermark(), await index.traces()]).toEqual([{ mc_seqno: 44, gen_utime: 1044 }, { mc_seqno: 21 }]);
  });

  it('overlapping reads: one that ends after a later one never lowers what that one served', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const answers = [w(50, 1), w(52, 1)];
    let call = 0;
    const store = {
      database: 'db',
      async query() {
        const mine = answers[call++];
        if (mine.index!.mc_seqno === 50) await slow;
        return [{ of: 'index', ...mine.index }];
      },
    } as unknown as Store;
    let t = 0;
    const index = createIndexState(store, { now: () => (t += 1_000) });
    const first = index.watermark();
    expect(await index.watermark()).toEqual({ mc_seqno: 52, gen_utime: 1052 });
    release();
    expect(await first).toEqual({ mc_seqno: 52, gen_utime: 1052 });
  });
});
