import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRoundLoop } from './round-loop.js';

afterEach(() => {
  vi.useRealTimers();
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('createRoundLoop()', () => {
  it('never overlaps rounds that overrun their slot, and does not burst to catch up', async () => {
    vi.useFakeTimers();
    let running = 0;
    let maxRunning = 0;
    const starts: number[] = [];
    const loop = createRoundLoop({
      intervalMs: 100,
      round: async () => {
        starts.push(Date.now());
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(250);
        running--;
      },
      onError: () => {},
    });
    const t0 = Date.now();
    loop.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(maxRunning).toBe(1);
    // Rounds start 100 ms in, then back to back every 250 ms: 100, 350, 600, 850 (no catch-up burst).
    expect(starts.map((s) => s - t0)).toEqual([100, 350, 600, 850]);
    const stopped = loop.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false); // the round started at 850 is still running
    await vi.advanceTimersByTimeAsync(300);
    expect(done).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toHaveLength(4);
  });

  it('keeps the interval when rounds are quick, and goes on after a failed round', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const errors: unknown[] = [];
    const loop = createRoundLoop({
      intervalMs: 100,
      round: async () => {
        starts.push(Date.now());
        await sleep(10);
        if (starts.length === 2) throw new Error('round 2 failed');
      },
      onError: (err) => errors.push(err),
    });
    const t0 = Date.now();
    loop.start();
    await vi.advanceTimersByTimeAsync(450);
    await loop.stop();
    expect(starts.map((s) => s - t0)).toEqual([100, 200, 300, 400]);
    expect(errors).toEqual([new Error('round 2 failed')]);
  });
});
