import type { Logger } from '@tonstream/runtime';
import type { Kafka } from 'kafkajs';
import { createDecoder, DECODER_GROUP_ID } from './decoder.js';
import type { DecoderMetrics } from './metrics.js';
import type { Topics } from '@tonstream/bus';

/** Where a replay must get to on one partition of `ton.blocks`: its end when the replay started. */
export type ReplayTarget = { partition: number; low: number; end: number };

export type ReindexProgress = { partitions: number; done: number; replayed: number; total: number };

/**
 * Progress of a replay: committed offsets (-1: nothing committed yet) against the targets. A
 * partition is done when its committed offset reached its end; an empty one is done at once.
 */
export function replayProgress(targets: ReplayTarget[], committed: Map<number, number>): ReindexProgress {
  let done = 0;
  let replayed = 0;
  let total = 0;
  for (const t of targets) {
    const at = committed.get(t.partition) ?? -1;
    const from = at >= 0 ? at : t.low;
    total += t.end - t.low;
    replayed += Math.min(t.end, from) - t.low;
    if (from >= t.end) done++;
  }
  return { partitions: targets.length, done, replayed, total };
}

export type ReindexDeps = {
  kafka: Kafka;
  topics: Topics;
  logger: Logger;
  metrics: DecoderMetrics;
  /** Prefix of the one-off consumer group (the topic prefix of the deployment). */
  groupPrefix?: string;
  concurrency?: number;
  workers?: number;
  pollMs?: number;
  onProgress?: (p: ReindexProgress) => void;
};

/**
 * Replays `ton.blocks` from the oldest retained message up to its end at the start, through a
 * decoder of its own (a fresh consumer group, deleted afterwards), which publishes every block's
 * records again. The running writer stores them; tables are keyed by natural ids, so rows already
 * there are replaced by equal ones and rows a new migration added are filled. The live decoder is
 * not disturbed. What was deleted from `ton.blocks` by retention is not replayed.
 */
export async function reindex(deps: ReindexDeps): Promise<ReindexProgress> {
  const { kafka, topics, logger } = deps;
  const groupId = `${deps.groupPrefix ?? ''}${DECODER_GROUP_ID}-reindex-${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const targets = (await admin.fetchTopicOffsets(topics.blocks)).map((p) => ({ partition: p.partition, low: Number(p.low), end: Number(p.high) }));
    logger.info('reindex: replaying ton.blocks', { group_id: groupId, topic: topics.blocks, messages: targets.reduce((n, t) => n + t.end - t.low, 0) });
    const decoder = createDecoder({ kafka, topics, logger, metrics: deps.metrics, groupId, concurrency: deps.concurrency, workers: deps.workers });
    let failed: unknown;
    decoder.done.catch((err: unknown) => (failed = err ?? new Error('the decoder stopped')));
    await decoder.start();
    let progress: ReindexProgress;
    try {
      for (;;) {
        if (failed) throw failed;
        const offsets = (await admin.fetchOffsets({ groupId, topics: [topics.blocks] }))[0]?.partitions ?? [];
        progress = replayProgress(targets, new Map(offsets.map((o) => [o.partition, Number(o.offset)])));
        deps.onProgress?.(progress);
        if (progress.done === progress.partitions) break;
        await new Promise((r) => setTimeout(r, deps.pollMs ?? 1_000));
      }
    } finally {
      await decoder.stop();
    }
    await admin.deleteGroups([groupId]);
    return progress;
  } finally {
    await admin.disconnect();
  }
}
