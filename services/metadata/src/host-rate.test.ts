import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './backoff.js';
import { createHostRate } from './host-rate.js';

describe('createHostRate()', () => {
  it('starts at most perSecond requests per host per second, each host on its own', () => {
    const rate = createHostRate(4);
    const t0 = 1_000_000;
    expect(rate.take('a', t0)).toBe(true);
    expect(rate.take('a', t0 + 100)).toBe(false);
    expect(rate.take('b', t0 + 100)).toBe(true);
    expect(rate.take('a', t0 + 250)).toBe(true);
    const started = Array.from({ length: 1000 }, (_, i) => rate.take('c', t0 + i)).filter(Boolean).length;
    expect(started).toBe(4);
  });
  it('forgets hosts idle for a minute', () => {
    const rate = createHostRate(1);
    for (let i = 0; i < 50; i++) rate.take(`h${i}`, 0);
    rate.take('late', 200_000);
    expect(rate.size()).toBe(1);
  });
});

describe('retryDelayMs()', () => {
  it('doubles from the base up to the cap, adding at most 20 % jitter', () => {
    expect([1, 2, 3, 4, 10].map((a) => retryDelayMs(a, 1000, 5000, () => 0))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(retryDelayMs(2, 1000, 5000, () => 1)).toBe(2400);
  });
});
