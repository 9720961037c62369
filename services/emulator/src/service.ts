import { CONSUMER_FETCH, ensureTopics, groupTiming, topicSpecs, type Topics, watchConsumer } from '@tonstream/bus';
import { combineHealth, type HealthStatus, type Logger } from '@tonstream/runtime';
import { type PendingKeys, type Store, sweepExpiredTraces } from '@tonstream/store';
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import { removeConfirmedTraces } from './confirmations.js';
import type { EmulatorMetrics } from './metrics.js';
import type { createProcessor } from './processor.js';
import type { PendingStream } from './pending-stream.js';

/** Time between the end of one sweep of pending traces (confirmed, then expired) and the start of the next. */
export const SWEEP_INTERVAL_MS = 1_000;
export const EMULATOR_GROUP_ID = 'tonstream-emulator';

export type EmulatorServiceDeps = {
  kafka: Kafka;
  topics: Topics;
  /** Partitions of the topic it creates (KAFKA_PARTITIONS). Default 4. */
  partitions?: number;
  groupId: string;
  /**
   * A crashed emulator's partitions move to its successor only once the group gives the dead member
   * up: kafkajs' 30 s default would leave fresh externals unemulated (and soon stale) that long, so
   * the service's default (KAFKA_SESSION_TIMEOUT_MS) is 10 s.
   */
  sessionTimeoutMs: number;
  processor: ReturnType<typeof createProcessor>;
  redis: Redis;
  keys: PendingKeys;
  /** The index, where confirmed traces replace pending ones; without it pending traces leave by TTL only. */
  store?: Store;
  concurrency: number;
  metrics: EmulatorMetrics;
  logger: Logger;
  /** Told about expired traces (the streamer's `trace_invalidated`). */
  pendingStream?: Pick<PendingStream, 'invalidated'>;
};

export type EmulatorService = {
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): HealthStatus;
  /** Rejects when the consumer is gone for good (watchConsumer): the process should exit non-zero. */
  readonly stopped: Promise<never>;
};

/**
 * Consumes `ton.pending_externals` and commits each offset only after the processor resolved for it
 * and every message before it (the pending trace is in Redis), so a crash re-delivers what was not
 * stored; already stored ones are recognised by their hash_norm. Sweeps expired traces meanwhile.
 */
export function createEmulatorService(deps: EmulatorServiceDeps): EmulatorService {
  const { kafka, topics, groupId, processor, redis, keys, store, concurrency, metrics, logger } = deps;
  // The topic comes from ensureTopics (its settings); one deleted under the consumer is a crash, not a new default topic.
  const consumer = kafka.consumer({ groupId, ...groupTiming(deps.sessionTimeoutMs), ...CONSUMER_FETCH, allowAutoTopicCreation: false });
  const watch = watchConsumer(consumer, logger);
  let sweeper: NodeJS.Timeout | undefined;
  let redisDown = false;
  let running = false;

  const sweep = async () => {
    if (store) {
      try {
        const confirmed = await removeConfirmedTraces(redis, keys, store);
        metrics.confirmed.inc(confirmed.length);
      } catch (err) {
        logger.warn('could not check pending traces against the index', { err });
      }
    }
    try {
      const expired = await sweepExpiredTraces(redis, keys, Date.now());
      if (expired.length > 0) {
        metrics.expired.inc(expired.length);
        deps.pendingStream?.invalidated(expired, 'expired');
        logger.info('pending traces expired', { count: expired.length });
      }
      redisDown = false;
    } catch (err) {
      if (!redisDown) logger.warn('sweep of expired pending traces failed', { err });
      redisDown = true;
      metrics.redisErrors.inc();
    }
  };

  // The next sweep is timed from the end of the last one: a slow index (each sweep may wait on
  // ClickHouse up to its request timeout) must not pile sweeps up every interval.
  const scheduleSweep = () => {
    sweeper = setTimeout(() => void sweep().finally(() => running && scheduleSweep()), SWEEP_INTERVAL_MS);
  };

  return {
    stopped: watch.stopped,
    async start() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        await ensureTopics(admin, topicSpecs(topics, deps.partitions).filter((s) => s.topic === topics.pendingExternals));
      } finally {
        await admin.disconnect();
      }
      await consumer.connect();
      // A new group reads the topic from its start: the processor skips externals older than the TTL.
      await consumer.subscribe({ topic: topics.pendingExternals, fromBeginning: true });
      running = true;
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 2,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          const control = { heartbeat, isRunning: () => isRunning() && !isStale() };
          for (let i = 0; i < batch.messages.length && control.isRunning(); i += concurrency) {
            const chunk = batch.messages.slice(i, i + concurrency);
            await Promise.all(chunk.map((m) => processor.process(m.value, control)));
            const last = chunk[chunk.length - 1].offset;
            resolveOffset(last);
            await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() }]);
            await heartbeat();
          }
        },
      });
      scheduleSweep();
      logger.info('emulator consuming', { topic: topics.pendingExternals, group: groupId });
    },
    async stop() {
      running = false;
      clearTimeout(sweeper);
      await consumer.disconnect();
    },
    health() {
      const reasons: string[] = [];
      if (!running) reasons.push('not consuming');
      if (redisDown) reasons.push('Redis unreachable: pending traces are not stored until it is back');
      return combineHealth({ status: reasons.length === 0 ? 'ok' : 'degraded', reasons }, watch.health());
    },
  };
}
