import { describe, expect, it } from 'vitest';
import { createOutbox } from './outbox.js';

describe('createOutbox()', () => {
  it('reports the age of the oldest write not handed over yet, in write order', () => {
    let now = 1_000;
    const o = createOutbox(() => now);
    expect(o.unsentAgeMs(now)).toBe(0);
    o.queued();
    o.queued();
    now = 1_500;
    o.queued();
    now = 4_000;
    expect(o.unsentAgeMs(now)).toBe(3_000);
    o.done();
    expect(o.unsentAgeMs(now)).toBe(3_000);
    o.done();
    expect(o.unsentAgeMs(now)).toBe(2_500);
    o.done();
    expect(o.unsentAgeMs(now)).toBe(0);
    // A stray callback (a write that failed after its socket closed) changes nothing.
    o.done();
    expect(o.unsentAgeMs(now)).toBe(0);
  });

  it('calls whenFlushed callbacks once everything written so far is handed over', async () => {
    let now = 0;
    const o = createOutbox(() => now);
    const calls: string[] = [];
    for (let i = 0; i < 3000; i++) {
      now = i;
      o.queued();
    }
    o.whenFlushed(() => calls.push('a'));
    for (let i = 0; i < 2999; i++) o.done();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([]);
    expect(o.unsentAgeMs(3000)).toBe(1);
    o.done();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['a']);
    o.whenFlushed(() => calls.push('b'));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['a', 'b']);
  });
});
