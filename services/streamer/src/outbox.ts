/**
 * What one connection has written that Node has not yet handed to the kernel, and since when. Every
 * write passes `done` as its callback (Node calls write callbacks in order, once the data left the
 * process), so the oldest unsent write's age is exact without a timer per write. Writes of the same
 * millisecond share one entry.
 */
export type Outbox = {
  /** Call right before each write. */
  queued(): void;
  /** The callback of each write. */
  readonly done: () => void;
  /** Age in ms of the oldest write still in the process; 0 when everything was handed over. */
  unsentAgeMs(now: number): number;
  /** Calls `cb` once every write so far has been handed over (on a later turn of the event loop). */
  whenFlushed(cb: () => void): void;
};

/** Entries consumed from the front are compacted away past this many. */
const COMPACT_AFTER = 1024;

export function createOutbox(now: () => number = Date.now): Outbox {
  const times: number[] = [];
  const counts: number[] = [];
  let head = 0;
  let waiters: (() => void)[] = [];

  const flushWaiters = () => {
    const ready = waiters;
    waiters = [];
    for (const cb of ready) setImmediate(cb);
  };

  return {
    queued() {
      const t = now();
      const last = times.length - 1;
      if (last >= head && times[last] === t) counts[last] += 1;
      else {
        times.push(t);
        counts.push(1);
      }
    },
    done: () => {
      if (head >= times.length) return;
      counts[head] -= 1;
      if (counts[head] > 0) return;
      head += 1;
      if (head >= times.length) {
        times.length = 0;
        counts.length = 0;
        head = 0;
        flushWaiters();
      } else if (head > COMPACT_AFTER) {
        times.splice(0, head);
        counts.splice(0, head);
        head = 0;
      }
    },
    unsentAgeMs(at) {
      return head < times.length ? at - times[head] : 0;
    },
    whenFlushed(cb) {
      if (head >= times.length) setImmediate(cb);
      else waiters.push(cb);
    },
  };
}
