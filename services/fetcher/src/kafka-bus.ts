/**
 * The fetcher's side of Kafka: publishes raw blocks (acks from all in-sync replicas, idempotent
 * producer) and reads/writes its checkpoint in the compacted checkpoints topic.
 */
import { blockKey, CONSUMER_FETCH, createIdempotentProducer, encodeRawBlock, ensureTopics, type RawBlock, type Topics, topicSpecs } from '@tonstream/bus';
import { type Kafka, Partitioners } from 'kafkajs';
import { type Checkpoint, encodeCheckpoint, latestCheckpoint } from './checkpoint.js';

/** Sends larger than this are split (in order): the broker caps one request at socket.request.max.bytes. */
export const MAX_SEND_BYTES = 32 * 1024 * 1024;
/** How long reading the checkpoint topic may take before giving up. */
export const CHECKPOINT_READ_TIMEOUT_MS = 60_000;

export type BlockBus = {
  /** Resolves once every block is acknowledged; blocks are sent in the order given. */
  publish(blocks: readonly RawBlock[]): Promise<void>;
  readCheckpoint(key: string): Promise<Checkpoint | undefined>;
  writeCheckpoint(key: string, checkpoint: Checkpoint): Promise<void>;
  close(): Promise<void>;
};

export type KafkaBusOptions = { kafka: Kafka; topics: Topics; clientId: string; partitions?: number };

/** Connects the producer, creates the blocks and checkpoints topics if missing. */
export async function openKafkaBus({ kafka, topics, clientId, partitions }: KafkaBusOptions): Promise<BlockBus> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(
      admin,
      topicSpecs(topics, partitions).filter((s) => s.topic === topics.blocks || s.topic === topics.checkpoints),
    );
  } finally {
    await admin.disconnect();
  }
  const producer = createIdempotentProducer(kafka, { allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();

  const publish = async (blocks: readonly RawBlock[]) => {
    let batch: { key: string; value: Buffer }[] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await producer.send({ topic: topics.blocks, acks: -1, messages: batch });
      batch = [];
      size = 0;
    };
    for (const b of blocks) {
      const value = encodeRawBlock(b);
      if (size + value.length > MAX_SEND_BYTES) await flush();
      batch.push({ key: blockKey(b), value });
      size += value.length;
    }
    await flush();
  };

  const readCheckpoint = async (key: string): Promise<Checkpoint | undefined> => {
    const a = kafka.admin();
    await a.connect();
    let offsets;
    try {
      offsets = await a.fetchTopicOffsets(topics.checkpoints);
    } finally {
      await a.disconnect();
    }
    const pending = new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high) - 1n]));
    if (pending.size === 0) return undefined;
    // kafkajs consumers need a group; this one never commits, so it leaves nothing behind.
    const consumer = kafka.consumer({ groupId: `${clientId}-checkpoint-${process.pid}-${Date.now()}`, ...CONSUMER_FETCH });
    const messages: { key: Buffer | null; value: Buffer | null }[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: topics.checkpoints, fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`reading ${topics.checkpoints} took over ${CHECKPOINT_READ_TIMEOUT_MS} ms`)), CHECKPOINT_READ_TIMEOUT_MS);
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              messages.push({ key: message.key, value: message.value });
              const last = pending.get(partition);
              if (last !== undefined && BigInt(message.offset) >= last) pending.delete(partition);
              if (pending.size === 0) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
    return latestCheckpoint(messages, key);
  };

  const writeCheckpoint = async (key: string, checkpoint: Checkpoint) => {
    await producer.send({ topic: topics.checkpoints, acks: -1, messages: [{ key, value: encodeCheckpoint(checkpoint) }] });
  };

  return { publish, readCheckpoint, writeCheckpoint, close: () => producer.disconnect() };
}
