import { describe, expect, it } from 'vitest';
import { createSlidingWindow } from './sliding-window.js';

describe('createSlidingWindow()', () => {
  it('admits `limit` requests in a window and refuses the next until the oldest leaves it', () => {
    const w = createSlidingWindow(1000);
    expect(w.take('ip:a', 2, 0)).toEqual({ allowed: true, remaining: 1 });
    expect(w.take('ip:a', 2, 400)).toEqual({ allowed: true, remaining: 0 });
    expect(w.take('ip:a', 2, 500)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(w.take('ip:a', 2, 999)).toEqual({ allowed: false, retryAfterMs: 1 });
    // exactly one window after the first request it no longer counts
    expect(w.take('ip:a', 2, 1000)).toEqual({ allowed: true, remaining: 0 });
    expect(w.take('ip:a', 2, 1001)).toEqual({ allowed: false, retryAfterMs: 399 });
  });

  it('does not count refused requests, so a client retrying at once is admitted when the window frees', () => {
    const w = createSlidingWindow(1000);
    expect(w.take('ip:a', 1, 0).allowed).toBe(true);
    for (let t = 1; t < 1000; t += 50) expect(w.take('ip:a', 1, t).allowed).toBe(false);
    expect(w.take('ip:a', 1, 1000).allowed).toBe(true);
  });

  it('keeps subjects apart', () => {
    const w = createSlidingWindow(1000);
    expect(w.take('ip:a', 1, 0).allowed).toBe(true);
    expect(w.take('ip:b', 1, 0).allowed).toBe(true);
    expect(w.take('key:k', 1, 0).allowed).toBe(true);
    expect(w.take('ip:a', 1, 1).allowed).toBe(false);
  });

  it('a lowered limit waits until enough requests left the window', () => {
    const w = createSlidingWindow(1000);
    for (let t = 0; t < 3; t++) expect(w.take('key:k', 3, t * 100).allowed).toBe(true);
    // now 1 per window: admitted again only when the third (t=200) is gone
    expect(w.take('key:k', 1, 300)).toEqual({ allowed: false, retryAfterMs: 900 });
  });

  it('forgets idle subjects', () => {
    const w = createSlidingWindow(1000);
    for (let i = 0; i < 100; i++) w.take(`ip:${i}`, 1, 0);
    expect(w.size()).toBe(100);
    w.take('ip:late', 1, 20_000);
    expect(w.size()).toBe(1);
  });
});
