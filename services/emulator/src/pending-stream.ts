import { createIdempotentProducer, ensureTopics, topicSpecs, type Topics } from '@tonstream/bus';
import type { Logger } from '@tonstream/runtime';
import type { PendingTraceEntry } from '@tonstream/store';
import type { Kafka } from 'kafkajs';

/** What the streamer is told about pending traces (`ton.pending_traces`, key: the external's hash_norm). */
export type PendingStream = {
  /** A pending trace as it was just stored in Redis. */
  stored(entry: PendingTraceEntry): void;
  /** Pending traces that expired unconfirmed: toncenter's invalidation (docs/streaming.md §8). */
  invalidated(hashNorms: readonly string[], reason: string): void;
  start(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Publishes pending traces for the streamer on a Kafka topic rather than Redis pub/sub (toncenter's
 * way): each streamer reads it in its own consumer group, so several run side by side, and one that
 * reconnects misses nothing published meanwhile. Redis stays the record: a failed publish is logged
 * and counted, never retried at the cost of the emulator's offsets (a lost pending event is what
 * toncenter's pub/sub would lose too; the confirmed events follow from the chain either way).
 */
export function createPendingStream(kafka: Kafka, topics: Topics, logger: Logger, onError: () => void, partitions?: number): PendingStream {
  const producer = createIdempotentProducer(kafka, {}, logger);
  const send = (key: string, value: object) => {
    producer.send({ topic: topics.pendingTraces, messages: [{ key, value: JSON.stringify(value) }] }).catch((err: unknown) => {
      onError();
      logger.warn('pending trace not published for the streamer', { hash_norm: key, err });
    });
  };
  return {
    stored(entry) {
      send(entry.trace.external_hash_norm, { kind: 'stored', ...entry });
    },
    invalidated(hashNorms, reason) {
      for (const h of hashNorms) send(h, { kind: 'invalidated', hash_norm: h, reason });
    },
    async start() {
      const admin = kafka.admin();
      await admin.connect();
      try {
        await ensureTopics(admin, topicSpecs(topics, partitions).filter((s) => s.topic === topics.pendingTraces));
      } finally {
        await admin.disconnect();
      }
      await producer.connect();
    },
    async stop() {
      await producer.disconnect();
    },
  };
}
