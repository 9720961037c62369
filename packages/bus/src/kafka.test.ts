import type { Admin } from 'kafkajs';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ensureTopics, groupTiming } from './kafka.js';
import type { TopicSpec } from './topics.js';

const spec = (topic: string): TopicSpec => ({ topic, numPartitions: 2, configEntries: [] });

/** kafkajs' own error for code 3, what a broker answers for a topic it does not serve yet. */
const notHosted = () => new kafkajs.KafkaJSProtocolError({ type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true, message: 'This server does not host this topic-partition' });

/** An admin whose metadata answers are the test's, one per call, the last one repeated. */
function adminAnswering(answers: (() => { name: string; partitions: { leader: number }[] }[])[]) {
  const calls = { create: 0, metadata: 0 };
  const admin = {
    listTopics: async () => [],
    // kafkajs's own wait for leaders retries only LEADER_NOT_AVAILABLE: a broker not serving the new topic yet makes it throw.
    createTopics: async (options: { waitForLeaders?: boolean }) => {
      calls.create++;
      if (options.waitForLeaders !== false) throw notHosted();
      return true;
    },
    fetchTopicMetadata: async () => ({ topics: answers[Math.min(calls.metadata++, answers.length - 1)]() }),
  } as unknown as Admin;
  return { admin, calls };
}

const served = (names: string[], leader = 0) => () => names.map((name) => ({ name, partitions: [{ leader }, { leader }] }));

describe('ensureTopics', () => {
  it('returns once the new topics are served, not while the broker says it does not host them or has no leader', async () => {
    const names = ['t.blocks', 't.meta'];
    const { admin, calls } = adminAnswering([
      () => {
        throw notHosted();
      },
      served(names, -1),
      served(['t.blocks']),
      served(names),
    ]);
    expect(await ensureTopics(admin, names.map(spec))).toEqual(names);
    expect(calls).toEqual({ create: 1, metadata: 4 });
  });

  it('passes on an error that is not about a topic being new', async () => {
    const { admin } = adminAnswering([
      () => {
        throw new kafkajs.KafkaJSNonRetriableError('broken');
      },
    ]);
    await expect(ensureTopics(admin, [spec('t.x')])).rejects.toThrow('broken');
  });
});

describe('groupTiming', () => {
  it("keeps kafkajs' defaults at 30 s and heartbeats five times a session below it", () => {
    expect(groupTiming(30_000)).toEqual({ sessionTimeout: 30_000, heartbeatInterval: 3_000 });
    expect(groupTiming(10_000)).toEqual({ sessionTimeout: 10_000, heartbeatInterval: 2_000 });
    expect(groupTiming(6_000).heartbeatInterval).toBe(1_200);
  });
});
