import type { BlockMark } from './accumulator.js';

export type ChainLagSnapshot = {
  /** Highest masterchain seqno among stored block metas; -1 before the first. */
  lastWrittenMc: number;
  /** Highest masterchain seqno among consumed block metas. */
  maxSeenMc: number;
  /** Masterchain blocks consumed but not stored yet. */
  lagBlocks: number;
  /** How long the oldest consumed, unstored block has been known (since the fetcher saw it); 0 when caught up. */
  lagSeconds: number;
};

export type ChainLag = {
  seen(mark: BlockMark): void;
  /** Block metas ClickHouse acknowledged; returns their freshness (now - seen_at) in seconds. */
  written(marks: readonly BlockMark[]): number[];
  snapshot(): ChainLagSnapshot;
};

/** The writer's distance to the chain head, from block metas consumed vs stored. */
export function createChainLag(now: () => number = Date.now): ChainLag {
  let lastWrittenMc = -1;
  let maxSeenMc = -1;
  let minSeenMc = Infinity;
  /** seen_at_ms of consumed, unstored block metas (a multiset). */
  const pending = new Map<number, number>();

  return {
    seen(mark) {
      if (mark.mcSeqno > maxSeenMc) maxSeenMc = mark.mcSeqno;
      if (mark.mcSeqno < minSeenMc) minSeenMc = mark.mcSeqno;
      if (mark.seenAtMs !== null) pending.set(mark.seenAtMs, (pending.get(mark.seenAtMs) ?? 0) + 1);
    },
    written(marks) {
      const t = now();
      const freshness: number[] = [];
      for (const m of marks) {
        if (m.mcSeqno > lastWrittenMc) lastWrittenMc = m.mcSeqno;
        if (m.seenAtMs === null) continue;
        freshness.push(Math.max(0, t - m.seenAtMs) / 1000);
        const n = pending.get(m.seenAtMs) ?? 0;
        if (n <= 1) pending.delete(m.seenAtMs);
        else pending.set(m.seenAtMs, n - 1);
      }
      return freshness;
    },
    snapshot() {
      let oldest = Infinity;
      for (const s of pending.keys()) if (s < oldest) oldest = s;
      // Before the first write, count from the first block seen rather than from seqno 0.
      const base = lastWrittenMc >= 0 ? lastWrittenMc : minSeenMc - 1;
      return {
        lastWrittenMc,
        maxSeenMc,
        lagBlocks: maxSeenMc < 0 ? 0 : Math.max(0, maxSeenMc - base),
        lagSeconds: oldest === Infinity ? 0 : Math.max(0, now() - oldest) / 1000,
      };
    },
  };
}
