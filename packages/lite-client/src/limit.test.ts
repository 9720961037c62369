import { describe, expect, it } from 'vitest';
import { createLimiter } from './limit.js';

describe('createLimiter()', () => {
  const peakOf = async (n: number, tasks: number) => {
    const limit = createLimiter(n);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: tasks }, () =>
        limit(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setImmediate(r));
          active--;
        }),
      ),
    );
    return peak;
  };

  it('runs at most n at once, or all with Infinity', async () => {
    expect(await peakOf(2, 6)).toBe(2);
    expect(await peakOf(Infinity, 6)).toBe(6);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createLimiter(0)).toThrow(RangeError);
    expect(() => createLimiter(1.5)).toThrow(RangeError);
  });
});
