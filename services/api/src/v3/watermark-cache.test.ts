import { describe, expect, it } from 'vitest';
import { createWatermarkCache } from './watermark-cache.js';

describe('createWatermarkCache', () => {
  it('computes once per (watermark, key), also for concurrent requests, and starts over when the watermark moves', async () => {
    const cache = createWatermarkCache();
    let runs = 0;
    const compute = async () => ++runs;
    expect(await Promise.all([cache.get(5, 'a', compute), cache.get(5, 'a', compute)])).toEqual([1, 1]);
    expect(await cache.get(5, 'b', compute)).toBe(2);
    expect(await cache.get(5, 'a', compute)).toBe(1);
    expect(await cache.get(6, 'a', compute)).toBe(3);
    expect(runs).toBe(3);
  });

  it('tells a finished answer of the current watermark without a promise, none while computing or of another watermark', async () => {
    const cache = createWatermarkCache<string>();
    let finish = (_: string) => {};
    const pending = cache.get(7, 'a', () => new Promise<string>((resolve) => (finish = resolve)));
    expect(cache.settled(7, 'a')).toBeUndefined();
    finish('text');
    await pending;
    expect(cache.settled(7, 'a')).toBe('text');
    expect(cache.settled(8, 'a')).toBeUndefined();
    await cache.get(8, 'b', async () => 'b');
    expect(cache.settled(7, 'a')).toBeUndefined();
  });

  it('does not keep a failed computation, and bounds its entries', async () => {
    const cache = createWatermarkCache(2);
    await expect(cache.get(1, 'x', () => Promise.reject(new Error('store away')))).rejects.toThrow('store away');
    expect(await cache.get(1, 'x', async () => 'ok')).toBe('ok');
    await cache.get(1, 'y', async () => 'y');
    let recomputed = false;
    await cache.get(1, 'z', async () => 'z'); // third entry: the cache starts over
    await cache.get(1, 'x', async () => ((recomputed = true), 'again'));
    expect(recomputed).toBe(true);
  });
});
