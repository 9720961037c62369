import { createAccumulator, type PendingBatch } from './accumulator.js';
import { type Commit, createOffsetTracker } from './offset-tracker.js';
import type { Consumed, Position } from './records.js';

/** While a consumer waits for room it heartbeats this often, so the group keeps its partitions. */
const HEARTBEAT_WHILE_WAITING_MS = 1_000;
/** A failed offset commit is tried again after this long (Kafka away, a rebalance in progress). */
const COMMIT_RETRY_MS = 1_000;

export type SinkOptions = {
  /** A batch is cut once it holds this many records... */
  batchRecords: number;
  /** ...or this long after its first record arrived. */
  flushMs: number;
  /** Batches being written at the same time; more are cut only when one finishes. */
  maxInFlight: number;
  /** Stores a batch, retrying inside as long as that can succeed; a rejection is fatal. */
  write: (batch: PendingBatch) => Promise<void>;
  /**
   * Commits offsets; called one at a time, in order. A failure is reported, not fatal (rows are
   * idempotent), and the offsets are committed again later: a commit is never dropped, or a writer
   * that has consumed everything would replay it after its next restart.
   */
  commit: (commits: Commit[]) => Promise<void>;
  commitRetryMs?: number;
  onStored?: (batch: PendingBatch, durationMs: number) => void;
  onCommitError?: (err: unknown, commits: Commit[]) => void;
  onFatal: (err: unknown) => void;
  now?: () => number;
};

export type Sink = {
  /** Adds what one consumed message holds (its offset gets committed even when nothing of it is usable). */
  add(consumed: Consumed, position: Position): void;
  /** False while a full batch waits for a write slot: the consumer should stop adding. */
  hasRoom(): boolean;
  /** Resolves when there is room (or the sink failed), heartbeating meanwhile. */
  waitForRoom(heartbeat: () => Promise<void>): Promise<void>;
  /** Cuts what was added so far into a batch now, without waiting for flushMs (when a write slot is free). */
  flushNow(): void;
  /** Writes everything added so far and waits until it is stored and its offsets committed (one last try); for stopping. */
  drain(): Promise<void>;
  readonly buffered: number;
  readonly inFlight: number;
  readonly failed: boolean;
};

/**
 * Batching and offset bookkeeping between the Kafka consumer and the store: records accumulate into
 * batches cut by size or age, up to `maxInFlight` batches are written concurrently, and a partition's
 * offset is committed only once every batch holding its earlier messages is stored, in order.
 */
export function createSink(options: SinkOptions): Sink {
  const now = options.now ?? Date.now;
  const acc = createAccumulator(now);
  const tracker = createOffsetTracker();
  const flushes = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let due = false;
  let draining = false;
  let failed = false;
  /** Per partition, the newest offset stored and not yet acknowledged by Kafka. */
  const owed = new Map<string, Commit>();
  let committing: Promise<void> | undefined;
  let commitRetry: NodeJS.Timeout | undefined;
  let wake: (() => void)[] = [];

  const notify = () => {
    const w = wake;
    wake = [];
    for (const f of w) f();
  };

  const armTimer = () => {
    if (timer || due || acc.messages === 0) return;
    const wait = Math.max(0, options.flushMs - (now() - (acc.firstAtMs ?? now())));
    timer = setTimeout(() => {
      timer = undefined;
      due = true;
      pump();
    }, wait);
    timer.unref();
  };

  function pump() {
    while (!failed && acc.messages > 0 && flushes.size < options.maxInFlight && (acc.records >= options.batchRecords || due || draining)) {
      clearTimeout(timer);
      timer = undefined;
      due = false;
      start(acc.take()!);
    }
    if (!failed) armTimer();
  }

  function start(pending: PendingBatch) {
    tracker.open(pending.id, pending.ends);
    const started = now();
    const flush: Promise<void> = options
      .write(pending)
      .then(
        () => {
          options.onStored?.(pending, now() - started);
          for (const c of tracker.complete(pending.id)) owed.set(`${c.topic}\u0000${c.partition}`, c);
          void commitOwed();
        },
        (err: unknown) => {
          if (failed) return;
          failed = true;
          clearTimeout(timer);
          options.onFatal(err);
        },
      )
      .finally(() => {
        flushes.delete(flush);
        notify();
        pump();
      });
    flushes.add(flush);
  }

  /** Commits what is owed, one commit at a time; resolves once this attempt (and any it queued behind) ends. */
  function commitOwed(): Promise<void> {
    if (committing) return committing.then(() => (owed.size > 0 ? commitOwed() : undefined));
    if (owed.size === 0) return Promise.resolve();
    clearTimeout(commitRetry);
    commitRetry = undefined;
    const sent = [...owed.entries()];
    const commits = sent.map(([, c]) => c);
    committing = options
      .commit(commits)
      .then(
        () => {
          // A newer offset of the same partition that arrived meanwhile stays owed.
          for (const [key, c] of sent) if (owed.get(key) === c) owed.delete(key);
        },
        (err: unknown) => {
          options.onCommitError?.(err, commits);
          commitRetry = setTimeout(() => void commitOwed(), options.commitRetryMs ?? COMMIT_RETRY_MS);
          commitRetry.unref();
        },
      )
      .finally(() => {
        committing = undefined;
      });
    return committing;
  }

  const hasRoom = () => failed || acc.records < options.batchRecords;

  return {
    add(consumed, position) {
      if (failed) return;
      acc.add(consumed, position);
      if (acc.records >= options.batchRecords) pump();
      else armTimer();
    },
    hasRoom,
    flushNow() {
      if (failed || acc.messages === 0) return;
      due = true;
      pump();
    },
    async waitForRoom(heartbeat) {
      while (!hasRoom()) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, HEARTBEAT_WHILE_WAITING_MS);
          wake.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
        await heartbeat();
      }
    },
    async drain() {
      draining = true;
      try {
        while (!failed && (acc.messages > 0 || flushes.size > 0)) {
          pump();
          await Promise.race(flushes);
        }
        await commitOwed();
        // Stopping: what is still owed is replayed after the restart (rows are idempotent).
        clearTimeout(commitRetry);
      } finally {
        draining = false;
      }
    },
    get buffered() {
      return acc.records;
    },
    get inFlight() {
      return flushes.size;
    },
    get failed() {
      return failed;
    },
  };
}
