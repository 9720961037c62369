import type { Admin } from 'kafkajs';

/** How far a consumer group is behind one partition: messages between its committed offset and the end. */
export type PartitionLag = { topic: string; partition: number; lag: number; committed: number; high: number };

/**
 * Lag of `groupId` on every partition of `topics`: high watermark minus the committed offset (the
 * low watermark when the group has not committed yet, so a fresh group reports the whole backlog).
 */
export async function fetchConsumerLag(admin: Admin, groupId: string, topics: string[]): Promise<PartitionLag[]> {
  const committed = await admin.fetchOffsets({ groupId, topics });
  const out: PartitionLag[] = [];
  for (const topic of topics) {
    const ends = await admin.fetchTopicOffsets(topic);
    const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
    for (const p of ends) {
      const high = Number(p.high);
      const at = Number(mine.find((m) => m.partition === p.partition)?.offset ?? -1);
      const from = at >= 0 ? at : Number(p.low);
      out.push({ topic, partition: p.partition, lag: Math.max(0, high - from), committed: at, high });
    }
  }
  return out;
}

export type LagPollerOptions = {
  admin: Admin;
  groupId: string;
  topics: string[];
  /** Time between polls. */
  intervalMs: number;
  onLag: (lag: PartitionLag[]) => void;
  onError?: (err: unknown) => void;
};

/** Polls `fetchConsumerLag` every `intervalMs` (never overlapping); returns a stop function. */
export function pollConsumerLag(options: LagPollerOptions): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const lag = await fetchConsumerLag(options.admin, options.groupId, options.topics);
      if (!stopped) options.onLag(lag);
    } catch (err) {
      if (!stopped) options.onError?.(err);
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs);
  };
  timer = setTimeout(tick, 0);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
