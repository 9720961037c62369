/** Whether a lane's consumers have read everything its topics hold (Kafka offsets). */
import { topicNames } from '@tonstream/bus';
import type { Admin } from 'kafkajs';

/** The consumer groups of a lane that must reach the end of its topics, and what each reads. */
function laneGroups(prefix: string): { groupId: string; topics: string[] }[] {
  const t = topicNames(prefix);
  return [
    { groupId: `${prefix}tonstream-decoder`, topics: [t.blocks] },
    { groupId: `${prefix}tonstream-writer`, topics: [t.transactions, t.messages, t.accountStates, t.blockMeta, t.traces, t.actions, t.traceBatches] },
  ];
}

/**
 * How many messages the lane's decoder and writer have not committed yet, over all their topics (0:
 * drained). A topic that does not exist yet holds nothing; a group that has not committed a partition
 * that holds messages has all of them to read.
 */
export async function laneBacklog(admin: Admin, prefix: string): Promise<number> {
  const existing = new Set(await admin.listTopics());
  let backlog = 0;
  for (const { groupId, topics } of laneGroups(prefix)) {
    const present = topics.filter((t) => existing.has(t));
    if (present.length === 0) continue;
    const committed = await admin.fetchOffsets({ groupId, topics: present });
    for (const topic of present) {
      const ends = await admin.fetchTopicOffsets(topic);
      const done = new Map((committed.find((c) => c.topic === topic)?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      for (const p of ends) {
        const end = BigInt(p.high);
        const at = done.get(p.partition) ?? -1n;
        const from = at < 0n ? BigInt(p.low) : at;
        if (end > from) backlog += Number(end - from);
      }
    }
  }
  return backlog;
}
