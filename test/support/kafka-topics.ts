import { createKafka } from '@tonstream/bus';
import kafkajs from 'kafkajs';

const brokers = () => (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

/**
 * Deletes the topics whose names satisfy `doomed` and that no live consumer reads (another test run or
 * bench may be using the same broker). Tests and benches each write to topics of their own prefix;
 * without this they stay on the local broker after the run (dozens of partitions each), and a broker
 * holding thousands of them takes minutes to start.
 */
export async function deleteTopics(doomed: (topic: string) => boolean): Promise<number> {
  const admin = createKafka({ brokers: brokers(), clientId: 'tonstream-test-cleanup' }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups((await admin.listGroups()).groups.map((g) => g.groupId));
    const inUse = new Set<string>();
    for (const g of groups) {
      for (const m of g.members) {
        if (m.memberAssignment.length === 0) continue;
        for (const topic of Object.keys(kafkajs.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {})) inUse.add(topic);
      }
    }
    const topics = (await admin.listTopics()).filter((t) => !t.startsWith('__') && !inUse.has(t) && doomed(t));
    // A few hundred names per request keeps each request well under the broker's size limits.
    for (let i = 0; i < topics.length; i += 200) await admin.deleteTopics({ topics: topics.slice(i, i + 200), timeout: 60_000 });
    return topics.length;
  } finally {
    await admin.disconnect();
  }
}

/** The topics on the broker now (a test run's teardown deletes those that were not there before it). */
export async function listTopics(): Promise<Set<string>> {
  const admin = createKafka({ brokers: brokers(), clientId: 'tonstream-test-cleanup' }).admin();
  await admin.connect();
  try {
    return new Set(await admin.listTopics());
  } finally {
    await admin.disconnect();
  }
}

/**
 * `node test/bench/dist/support/kafka-topics.js snapshot FILE` records the topics there are;
 * `… delete-new FILE` deletes those created since (scripts/bench.sh brackets the benches with them).
 */
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [command, file] = process.argv.slice(2);
  const { readFileSync, writeFileSync } = await import('node:fs');
  if (command === 'snapshot' && file) writeFileSync(file, [...(await listTopics())].join('\n'));
  else if (command === 'delete-new' && file) {
    const before = new Set(readFileSync(file, 'utf8').split('\n'));
    const n = await deleteTopics((t) => !before.has(t));
    if (n > 0) process.stderr.write(`deleted the ${n} Kafka topics the run created\n`);
  } else {
    process.stderr.write('usage: kafka-topics.js snapshot|delete-new FILE\n');
    process.exit(2);
  }
}
