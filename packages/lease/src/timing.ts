/**
 * The lease's clock, as pure arithmetic. Redis starts a lease's TTL when it runs the command, which
 * is never before the holder sent it: a lease confirmed by a command sent at `t` is surely the
 * holder's until `t + ttl`. The holder counts it as lost a safety margin earlier, so it has stopped
 * its work before Redis can let a standby in (a late timer, a slow stop, a clock running a little
 * fast all fit in the margin).
 */
export type LeaseTiming = {
  ttlMs: number;
  /** How often the holder renews: three tries within a TTL. */
  renewEveryMs: number;
  /** How often a standby tries to acquire at most (sooner when the holder's TTL runs out sooner). */
  pollEveryMs: number;
  /** How long before Redis would expire it the holder gives the lease up. */
  safetyMarginMs: number;
};

export function leaseTiming(ttlMs: number): LeaseTiming {
  return { ttlMs, renewEveryMs: Math.floor(ttlMs / 3), pollEveryMs: Math.floor(ttlMs / 3), safetyMarginMs: Math.floor(ttlMs / 4) };
}

/** Until when a lease confirmed by a command sent at `sentAtMs` counts as held. */
export function heldUntil(timing: LeaseTiming, sentAtMs: number): number {
  return sentAtMs + timing.ttlMs - timing.safetyMarginMs;
}

/**
 * How long a standby waits before its next attempt: until the holder's lease would expire (its PTTL
 * as Redis answered it, a little after), at most `pollEveryMs`. A PTTL below 0 means the key had no
 * TTL (-1, set by someone else: poll) or was gone by the time it was read (-2: try again soon).
 */
export function nextAttemptIn(timing: LeaseTiming, holderPttlMs: number | null): number {
  const SOON_MS = 10;
  if (holderPttlMs === null || holderPttlMs === -1) return timing.pollEveryMs;
  if (holderPttlMs < 0) return SOON_MS;
  return Math.min(timing.pollEveryMs, holderPttlMs + SOON_MS);
}
