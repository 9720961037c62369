/** Delay before attempt `attempt + 1` after a transient failure: doubling from `baseMs`, capped, with up to 20 % jitter so a host's failures do not retry in step. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(plain * (1 + 0.2 * random()));
}
