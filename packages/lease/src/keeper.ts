import { heldUntil, type LeaseTiming } from './timing.js';

/** What one renewal found: still ours (TTL restarted), or no longer ours (another token, or expired). */
export type RenewalResult = 'renewed' | 'not_ours';

export type KeeperOptions = {
  timing: LeaseTiming;
  /** When the command that last confirmed the lease (its acquisition) was sent. */
  confirmedSentAtMs: number;
  renew(): Promise<RenewalResult>;
  /** A renewal that brought no answer (Redis away, a timeout): the lease may still be ours. */
  onRenewalError?(err: unknown): void;
  now?: () => number;
};

export type Keeper = {
  /** Settles, with why, the moment the lease counts as lost; never once `stop` was called. */
  readonly lost: Promise<string>;
  /** Aborted when `lost` settles. */
  readonly signal: AbortSignal;
  /** Stops renewing (the caller releases the lease); clears every timer. */
  stop(): void;
};

/**
 * Keeps a held lease: renews every `renewEveryMs` (one renewal in flight at most) and declares it lost
 * when a renewal finds it is no longer ours, or when no renewal was confirmed for so long that Redis
 * may expire it soon (`heldUntil`): Redis away, or a renewal hanging, ends in the same deadline.
 */
export function keepLease(options: KeeperOptions): Keeper {
  const { timing, renew } = options;
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  /** When the command that last confirmed the lease was sent. */
  let confirmedAt = options.confirmedSentAtMs;
  let over = false;
  let settleLost!: (reason: string) => void;
  const lost = new Promise<string>((resolve) => (settleLost = resolve));
  let deadline: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  let recheck: NodeJS.Immediate | undefined;

  const end = () => {
    over = true;
    clearTimeout(renewal);
    clearTimeout(deadline);
    clearImmediate(recheck);
  };
  const lose = (reason: string) => {
    if (over) return;
    end();
    controller.abort(reason);
    settleLost(reason);
  };
  const decide = () => {
    if (now() >= heldUntil(timing, confirmedAt)) lose(`no renewal confirmed for ${now() - confirmedAt} ms: Redis may let another process take the lease within ${timing.ttlMs - (now() - confirmedAt)} ms`);
    else armDeadline();
  };
  const armDeadline = () => {
    clearTimeout(deadline);
    // After a stall (a busy event loop, a starved process) timers run before the replies waiting in
    // the socket: decide once those are read. A renewal confirmed there counts from when it was sent.
    deadline = setTimeout(() => (recheck = setImmediate(decide)), Math.max(0, heldUntil(timing, confirmedAt) - now()));
  };
  /** Renews `renewEveryMs` after the last renewal was sent (the first: after the acquisition was); one in flight at a time. */
  const scheduleRenewal = (lastSentAt: number) => {
    renewal = setTimeout(() => {
      const sentAt = now();
      const next = () => !over && scheduleRenewal(sentAt);
      renew().then(
        (result) => {
          if (over) return;
          if (result === 'not_ours') return lose('a renewal found the lease no longer ours (expired, or another process holds it)');
          confirmedAt = Math.max(confirmedAt, sentAt);
          armDeadline();
          next();
        },
        (err: unknown) => {
          if (over) return;
          options.onRenewalError?.(err);
          next();
        },
      );
    }, Math.max(0, lastSentAt + timing.renewEveryMs - now()));
  };
  scheduleRenewal(confirmedAt);
  armDeadline();

  return { lost, signal: controller.signal, stop: end };
}
