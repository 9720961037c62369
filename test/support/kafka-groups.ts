import { type Admin, AssignerProtocol } from 'kafkajs';

/**
 * Whether consumer group `groupId` has processed everything in the topics its members are assigned:
 * its committed offset is the end of each of their partitions (the services commit an offset only
 * after what comes before it is processed). A group that is rebalancing or has no member is not.
 * What is in flight towards a topic (a producer's retry) is not seen: wait for its producer first.
 */
export async function groupCaughtUp(admin: Admin, groupId: string): Promise<boolean> {
  const {
    groups: [group],
  } = await admin.describeGroups([groupId]);
  if (group.state !== 'Stable' || group.members.length === 0) return false;
  const assigned = group.members.flatMap((m) => Object.keys(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}));
  for (const topic of new Set(assigned)) {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const offsetOf = (partition: number) => committed.partitions.find((p) => p.partition === partition)?.offset;
    if (!ends.every((e) => e.high === e.low || offsetOf(e.partition) === e.high)) return false;
  }
  return true;
}
