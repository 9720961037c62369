import { describe, expect, it } from 'vitest';
import { createAdmission } from './admission.js';

describe('createAdmission()', () => {
  it('admits a hash_norm once while it is recent, again after the dedupe window', () => {
    const a = createAdmission({ rate: 100, windowMs: 10_000, dedupeMs: 60_000 });
    expect(a.admit('h1', 'd', 0)).toBe('admit');
    expect(a.admit('h1', 'd', 59_999)).toBe('duplicate');
    expect(a.admit('h1', 'd', 60_000)).toBe('admit');
  });

  it('admits at most `rate` per destination per window (toncenter: 3 per 10 s), other destinations unaffected', () => {
    const a = createAdmission({ rate: 3, windowMs: 10_000, dedupeMs: 60_000 });
    expect(['a', 'b', 'c', 'd'].map((h, i) => a.admit(h, 'wallet', i * 1000))).toEqual(['admit', 'admit', 'admit', 'rate_limited']);
    expect(a.admit('e', 'other', 4_000)).toBe('admit');
    // The first admission leaves the window at 10 s.
    expect(a.admit('d', 'wallet', 10_000)).toBe('admit');
    expect(a.admit('f', 'wallet', 10_001)).toBe('rate_limited');
  });

  it('forgets a hash so a failed emulation can be retried', () => {
    const a = createAdmission({ rate: 100, windowMs: 10_000, dedupeMs: 60_000 });
    a.admit('h', 'd', 0);
    a.forget('h');
    expect(a.admit('h', 'd', 1)).toBe('admit');
  });
});
