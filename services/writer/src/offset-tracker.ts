import type { PartitionEnd } from './accumulator.js';

/** An offset that is safe to commit: every message before it is stored. */
export type Commit = { topic: string; partition: number; offset: string };

export type OffsetTracker = {
  /** Registers a batch when it is cut, before it is written; batches must be opened in cut order. */
  open(batchId: number, ends: readonly PartitionEnd[]): void;
  /**
   * Marks a batch stored and returns what may be committed now: per partition, the end of the
   * longest prefix of opened batches that are all stored. A batch that finishes before an earlier
   * one commits nothing until the earlier one is stored too.
   */
  complete(batchId: number): Commit[];
  /** Batches opened and not completed. */
  readonly openBatches: number;
};

/**
 * Offset bookkeeping for batches written concurrently (PostHog's consumer keeps the same invariant):
 * a committed offset never covers a message that is not stored, and committed offsets only grow.
 */
export function createOffsetTracker(): OffsetTracker {
  /** Per partition: the opened batches touching it, in open order. */
  const queues = new Map<string, { batchId: number; next: bigint }[]>();
  const partitions = new Map<string, { topic: string; partition: number; committed: bigint }>();
  const done = new Set<number>();
  const opened = new Set<number>();

  return {
    open(batchId, ends) {
      opened.add(batchId);
      for (const e of ends) {
        const key = `${e.topic}\u0000${e.partition}`;
        if (!partitions.has(key)) partitions.set(key, { topic: e.topic, partition: e.partition, committed: -1n });
        let q = queues.get(key);
        if (!q) queues.set(key, (q = []));
        q.push({ batchId, next: e.next });
      }
    },
    complete(batchId) {
      if (!opened.has(batchId)) throw new Error(`batch ${batchId} was never opened`);
      opened.delete(batchId);
      done.add(batchId);
      const commits: Commit[] = [];
      for (const [key, q] of queues) {
        let advanced: bigint | undefined;
        while (q.length > 0 && done.has(q[0].batchId)) {
          const head = q.shift()!;
          if (advanced === undefined || head.next > advanced) advanced = head.next;
        }
        const p = partitions.get(key)!;
        if (advanced !== undefined && advanced > p.committed) {
          p.committed = advanced;
          commits.push({ topic: p.topic, partition: p.partition, offset: advanced.toString() });
        }
        if (q.length === 0) queues.delete(key);
      }
      // A finished batch stays in `done` only while some queue still holds it.
      for (const id of [...done]) if (![...queues.values()].some((q) => q.some((x) => x.batchId === id))) done.delete(id);
      return commits;
    },
    get openBatches() {
      return opened.size;
    },
  };
}
