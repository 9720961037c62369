import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepLease, type RenewalResult } from './keeper.js';
import { heldUntil, leaseTiming, nextAttemptIn } from './timing.js';

const TTL = 9_000;
const timing = leaseTiming(TTL);

/** A keeper from now, renewing with `renew`; `lostAt` is the fake time `lost` settled (undefined: not yet). */
function keeper(renew: () => Promise<RenewalResult>) {
  const k = keepLease({ timing, confirmedSentAtMs: Date.now(), renew });
  const start = Date.now();
  const seen: { lostAt?: number; reason?: string } = {};
  void k.lost.then((reason) => Object.assign(seen, { lostAt: Date.now() - start, reason }));
  return { k, seen };
}

// Fake setImmediate (the deadline's last look) runs a millisecond on: times are checked to within a few.
beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('lease timing', () => {
  it('renews and polls every third of the TTL and gives up a quarter of it early', () => {
    expect(timing).toEqual({ ttlMs: TTL, renewEveryMs: 3_000, pollEveryMs: 3_000, safetyMarginMs: 2_250 });
    expect(heldUntil(timing, 1_000)).toBe(1_000 + TTL - 2_250);
  });

  it('tries again when the holder\'s TTL runs out, at most a poll period later', () => {
    expect(nextAttemptIn(timing, 500)).toBe(510);
    expect(nextAttemptIn(timing, 8_000)).toBe(3_000);
    expect(nextAttemptIn(timing, -2)).toBe(10);
    expect(nextAttemptIn(timing, -1)).toBe(3_000);
    expect(nextAttemptIn(timing, null)).toBe(3_000);
  });
});

describe('keepLease', () => {
  it('keeps a lease whose renewals succeed', async () => {
    const renew = vi.fn(async (): Promise<RenewalResult> => 'renewed');
    const { k, seen } = keeper(renew);
    await vi.advanceTimersByTimeAsync(10 * TTL);
    expect(seen.lostAt).toBeUndefined();
    expect(renew).toHaveBeenCalledTimes(30);
    k.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('renews a period after the acquisition was sent, not after its slow answer came', async () => {
    const renew = vi.fn(async (): Promise<RenewalResult> => 'renewed');
    const k = keepLease({ timing, confirmedSentAtMs: Date.now() - 800, renew });
    await vi.advanceTimersByTimeAsync(2_200);
    expect(renew).toHaveBeenCalledTimes(1);
    k.stop();
  });

  it('loses it at the first renewal that finds another token', async () => {
    const { seen } = keeper(async () => 'not_ours');
    await vi.advanceTimersByTimeAsync(TTL);
    expect(seen).toMatchObject({ lostAt: 3_000, reason: expect.stringMatching(/no longer ours/) });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('loses it a safety margin before the TTL when every renewal fails', async () => {
    const failures: unknown[] = [];
    const k = keepLease({ timing, confirmedSentAtMs: Date.now(), renew: async () => Promise.reject(new Error('ECONNREFUSED')), onRenewalError: (e) => failures.push(e) });
    let lostAt: number | undefined;
    const start = Date.now();
    void k.lost.then(() => (lostAt = Date.now() - start));
    await vi.advanceTimersByTimeAsync(TTL);
    expect(lostAt).toBeCloseTo(TTL - timing.safetyMarginMs, -1);
    expect(k.signal.aborted).toBe(true);
    expect(failures).toHaveLength(2);
  });

  it('loses it at the same deadline when a renewal never answers (a stalled connection)', async () => {
    const renew = vi.fn(() => new Promise<RenewalResult>(() => {}));
    const { seen } = keeper(renew);
    await vi.advanceTimersByTimeAsync(TTL);
    expect(seen).toMatchObject({ lostAt: expect.closeTo(TTL - timing.safetyMarginMs, -1), reason: expect.stringMatching(/no renewal confirmed for 675\d ms/) });
    expect(renew).toHaveBeenCalledTimes(1);
  });

  it('counts a late answer from when the renewal was sent, not when it came', async () => {
    // Sent at 3 s, answered at 5 s: held until 3 s + TTL - margin = 9.75 s (the next renewal hangs).
    let calls = 0;
    const { seen } = keeper(() => (++calls === 1 ? new Promise((r) => setTimeout(() => r('renewed'), 2_000)) : new Promise(() => {})));
    await vi.advanceTimersByTimeAsync(2 * TTL);
    expect(seen.lostAt).toBeCloseTo(3_000 + TTL - timing.safetyMarginMs, -1);
  });

  it('reads a renewal answered at the deadline before it decides (a stalled loop runs timers first)', async () => {
    let calls = 0;
    // Sent at 3 s, answered at 6.75 s, the first deadline: held until 9.75 s.
    const { seen } = keeper(() => (++calls === 1 ? new Promise((r) => setTimeout(() => r('renewed'), TTL - timing.safetyMarginMs - 3_000)) : new Promise(() => {})));
    await vi.advanceTimersByTimeAsync(2 * TTL);
    expect(seen.lostAt).toBeCloseTo(3_000 + TTL - timing.safetyMarginMs, -1);
  });

  it('keeps it through a failed renewal followed by a good one', async () => {
    let calls = 0;
    const { k, seen } = keeper(async () => (++calls === 1 ? Promise.reject(new Error('timeout')) : 'renewed'));
    await vi.advanceTimersByTimeAsync(5 * TTL);
    expect(seen.lostAt).toBeUndefined();
    k.stop();
  });

  it('never reports a loss after stop', async () => {
    const { k, seen } = keeper(async () => 'not_ours');
    k.stop();
    await vi.advanceTimersByTimeAsync(2 * TTL);
    expect(seen.lostAt).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
