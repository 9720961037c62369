import type { HeldLease, Lease, LeaseLogger } from './lease.js';

/** A health report as `@tonstream/runtime` takes it. */
export type StandbyHealth = { status: 'ok' | 'degraded'; reasons: string[]; details: Record<string, unknown> };

/** What a service's start hands over (`ServiceContext` of @tonstream/runtime fits). */
export type StandbyContext = {
  logger: LeaseLogger;
  /** Aborted when stopping begins: the wait ends. */
  signal: AbortSignal;
  health(report: () => StandbyHealth): void;
  /** The service cannot go on: it stops and exits 1. */
  fail(reason: string): void;
};

/**
 * A service's start behind a lease: a hot standby (healthy, `standby` in /healthcheck; degraded while
 * it cannot reach Redis) until this process holds the lease, then the caller starts its work as a
 * fresh start does. Losing the lease later fails the service (stop, exit 1): its supervisor restarts
 * it, as a standby.
 */
export async function standByUntilHeld(lease: Lease, ctx: StandbyContext): Promise<HeldLease> {
  const since = Date.now();
  ctx.health(() => {
    const s = lease.state();
    const holder = s.holder ? `held by ${s.holder}` : 'not acquired yet';
    const redis = s.lastError ? `; Redis: ${s.lastError}` : '';
    // A standby that cannot reach Redis could not take over: degraded, not an error (the holder works).
    return { status: s.lastError ? 'degraded' : 'ok', reasons: [`standby: lease ${lease.key} ${holder}; this process takes over when it is free${redis}`], details: { lease: 'standby', lease_key: lease.key } };
  });
  ctx.logger.info('standby: waiting for the lease', { lease: lease.key, ttl_ms: lease.timing.ttlMs, token: lease.token });
  const held = await lease.acquire(ctx.signal);
  ctx.logger.info('lease acquired: starting', { lease: lease.key, fence: held.fence, waited_ms: Date.now() - since });
  void held.lost.then((reason) => ctx.fail(`lost the lease ${lease.key}: ${reason}; stopping (exit 1: its supervisor restarts it as a standby)`));
  return held;
}
