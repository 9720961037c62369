/**
 * A lease in Redis: at most one holder of `key` at a time. Acquire is `SET key token NX PX ttl`, and in
 * the same script an INCR of `<key>:fence`, the holder's fencing number (each acquisition a higher one);
 * renew and release are scripts that act only while the value is still the holder's token. The
 * connection is the lease's own, so the commands of the work it guards never queue before a renewal.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { TonstreamError } from '@tonstream/errors';
import { Redis } from 'ioredis';
import { keepLease, type RenewalResult } from './keeper.js';
import { type LeaseTiming, leaseTiming, nextAttemptIn } from './timing.js';

/** Stopping began while the process waited for the lease. */
export class LeaseWaitAbortedError extends TonstreamError {
  readonly code = 'LEASE_WAIT_ABORTED';
}

const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('INCR', KEYS[2])}
end
return {0, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1])}`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** The subset of a structured logger the lease logs to (`@tonstream/runtime`'s Logger fits). */
export type LeaseLogger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
};

/** What a service counts (`createLeaseMetrics` of @tonstream/runtime fits). */
export type LeaseObserver = {
  acquired(fence: number): void;
  /** The lease is no longer this process's: lost, or released. */
  dropped(): void;
  renewalFailed(): void;
};

export type LeaseOptions = {
  redisUrl: string;
  key: string;
  ttlMs: number;
  logger?: LeaseLogger;
  observer?: LeaseObserver;
};

export type HeldLease = {
  /** The fencing number of this acquisition: higher than every earlier holder's. */
  readonly fence: number;
  /** Settles, with why, as soon as the lease counts as lost (a safety margin before Redis could let another process in); never after `release`. */
  readonly lost: Promise<string>;
  /** Aborted when `lost` settles. */
  readonly signal: AbortSignal;
  /** Stops renewing and deletes the key if it is still ours, so a standby takes over at once. */
  release(): Promise<void>;
};

/** What the lease looks like from here, for /healthcheck. */
export type LeaseState = { held: boolean; fence?: number; holder?: string; lastError?: string };

export type Lease = {
  readonly key: string;
  readonly token: string;
  readonly timing: LeaseTiming;
  /** One attempt: the lease if it was free, else undefined. */
  tryAcquire(): Promise<HeldLease | undefined>;
  /** Attempts until the lease is this process's (each time the holder's TTL could have run out, at least every `pollEveryMs`); rejects with LeaseWaitAbortedError when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<HeldLease>;
  state(): LeaseState;
  /** Releases the lease if held, then closes the connection. */
  close(): Promise<void>;
};

export function createLease(options: LeaseOptions): Lease {
  const { key, logger, observer } = options;
  const timing = leaseTiming(options.ttlMs);
  const fenceKey = `${key}:fence`;
  const token = `${hostname()}:${process.pid}:${randomUUID()}`;
  // A command without an answer fails after a renewal period, so no attempt waits on a dead connection;
  // reconnecting stays within a second, well inside the TTL.
  const redis = new Redis(options.redisUrl, { commandTimeout: timing.renewEveryMs, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(100 * times, 1_000) });
  const state: LeaseState = { held: false };
  redis.on('error', (err: Error) => (state.lastError = err.message));
  redis.on('ready', () => delete state.lastError);
  let held: HeldLease | undefined;

  const renew = async (): Promise<RenewalResult> => ((await redis.eval(RENEW, 1, key, token, timing.ttlMs)) === 1 ? 'renewed' : 'not_ours');

  const tryOnce = async (): Promise<{ held: HeldLease } | { holderPttlMs: number | null }> => {
    const sentAt = Date.now();
    const [ok, n, holder] = (await redis.eval(ACQUIRE, 2, key, fenceKey, token, timing.ttlMs)) as [number, number, string | null];
    delete state.lastError;
    if (ok !== 1) {
      state.holder = holder ?? undefined;
      return { holderPttlMs: n };
    }
    const keeper = keepLease({
      timing,
      confirmedSentAtMs: sentAt,
      renew,
      onRenewalError: (err) => {
        observer?.renewalFailed();
        logger?.warn('renewing the lease failed; it stays ours until its deadline unless a renewal succeeds', { lease: key, err });
      },
    });
    const lease: HeldLease = {
      fence: n,
      lost: keeper.lost,
      signal: keeper.signal,
      release: async () => {
        keeper.stop();
        if (held !== lease) return;
        held = undefined;
        Object.assign(state, { held: false, fence: undefined });
        observer?.dropped();
        // Not released (Redis away): it expires within a TTL, and a standby takes over then.
        await redis.eval(RELEASE, 1, key, token).catch((err: unknown) => logger?.warn('releasing the lease failed; it expires by itself', { lease: key, err }));
      },
    };
    void keeper.lost.then(() => {
      if (held !== lease) return;
      held = undefined;
      Object.assign(state, { held: false, fence: undefined });
      observer?.dropped();
    });
    held = lease;
    Object.assign(state, { held: true, fence: n, holder: token });
    observer?.acquired(n);
    return { held: lease };
  };

  return {
    key,
    token,
    timing,
    state: () => ({ ...state }),
    async tryAcquire() {
      const r = await tryOnce();
      return 'held' in r ? r.held : undefined;
    },
    async acquire(signal) {
      for (let attempt = 0; ; attempt++) {
        if (signal?.aborted) throw new LeaseWaitAbortedError(`stopped while waiting for the lease ${key}`);
        let wait = timing.pollEveryMs;
        try {
          const r = await tryOnce();
          if ('held' in r) return r.held;
          wait = nextAttemptIn(timing, r.holderPttlMs);
        } catch (err) {
          state.lastError = (err as Error).message;
          // The first failure, then one a minute at the default TTL.
          if (attempt % 20 === 0) logger?.warn('cannot reach Redis to acquire the lease; trying again', { lease: key, err });
        }
        await sleep(wait, signal);
      }
    },
    async close() {
      try {
        await held?.release();
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller's loop then notices). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
