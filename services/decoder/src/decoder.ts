import { CONSUMER_FETCH, createIdempotentProducer, deadLetterChunks, ensureTopics, groupTiming, kafkaErrorType, MAX_MESSAGE_BYTES, pollConsumerLag, topicSpecs, type Topics, watchConsumer } from '@tonstream/bus';
import { combineHealth, type HealthStatus, type Logger } from '@tonstream/runtime';
import { CompressionTypes, type EachBatchPayload, type Kafka, type KafkaMessage, Partitioners, type TopicMessages } from 'kafkajs';
import type { DecodedBlock, DecodeErrorKind, DecodeOutcome, OutRecord, RecordPartitions } from './decode-message.js';
import { createDecodePool } from './decode-pool.js';
import { useFastGzip } from './fast-gzip.js';
import type { DecoderMetrics } from './metrics.js';

/** Consumer group of every decoder instance: partitions of the raw block topic are shared among them. */
export const DECODER_GROUP_ID = 'tonstream-decoder';
/** A produce request carries the records of at most this many blocks... */
const CHUNK_MAX_BLOCKS = 16;
/**
 * ...or of about this many bytes of raw blocks (their JSON records are ~3x larger): a few MB per
 * request keeps kafkajs's encoding copies and the wait before a chunk's first block is published small.
 */
const CHUNK_MAX_RAW_BYTES = 1024 * 1024;
/** How often consumer lag is read from the broker. */
const LAG_POLL_MS = 5_000;
/**
 * A produce not acknowledged after this long is being retried by kafkajs (broker away, an output topic
 * deleted: produces never create topics): health `degraded`. A healthy chunk is acked well within 1 s
 * locally and a few seconds across a network while catching up.
 */
const PRODUCE_SLOW_MS = 5_000;
/**
 * ...and `error` after this long. The decoder does not exit: the producer goes on by itself once the
 * broker (or the topic) is back, and a restart would only wait for the same broker.
 */
const PRODUCE_STALLED_MS = 30_000;
/**
 * Broker answers that say the messages themselves are unacceptable: sending them again fails again.
 * Anything else (broker away, leadership moving) is retried by the producer without end.
 */
const REFUSED_MESSAGES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD']);

export type DecoderDeps = {
  kafka: Kafka;
  topics: Topics;
  logger: Logger;
  metrics: DecoderMetrics;
  /** Consumer group. Default `tonstream-decoder` (main.ts prefixes it with the topic prefix). */
  groupId?: string;
  /** How long the consumer may go silent before the group gives its partitions away (KAFKA_SESSION_TIMEOUT_MS). Default 30 s, kafkajs' own. */
  sessionTimeoutMs?: number;
  /** Partitions of the topics it creates (KAFKA_PARTITIONS). Default 4. */
  partitions?: number;
  /** Raw block partitions decoded at the same time. Default 2. */
  concurrency?: number;
  /** Worker threads decoding blocks; 0 decodes on the main thread (what tests run). Default 0. */
  workers?: number;
  /**
   * Compression of produced record batches. Default `none`: on a broker next door gzip only costs
   * CPU in the decoder and in every consumer; `gzip` (level 1) pays when Kafka is across a network.
   */
  compression?: 'none' | 'gzip';
  /** `max.message.bytes` the topics must allow (checked at start). Default MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
};

export type Decoder = {
  /** Ensures the topics, connects and starts consuming; resolves once the consumer runs. */
  start(): Promise<void>;
  /** Finishes the chunk in flight (publish + commit), then disconnects. */
  stop(): Promise<void>;
  health(): HealthStatus;
  readonly deadLetterTopic: string;
  /** Rejects when the consumer stopped for good: the process should exit non-zero. */
  readonly done: Promise<void>;
};

/** Why a raw block goes to the dead-letter topic: it did not decode, or its records were refused. */
type DeadKind = DecodeErrorKind | 'produce';
type DeadLetter = { message: KafkaMessage; kind: DeadKind; error: Error; key: string | null };
type Chunk = { decoded: { block: DecodedBlock; message: KafkaMessage }[]; dead: DeadLetter[]; lastOffset: string };
type Source = { topic: string; partition: number };

/** The broker's error code when it refused the messages themselves (see REFUSED_MESSAGES). */
function refusedMessages(err: unknown): string | undefined {
  const type = kafkaErrorType(err);
  return type !== undefined && REFUSED_MESSAGES.has(type) ? type : undefined;
}

/**
 * The decoder: consumes raw blocks, publishes transactions, messages and account states, then each
 * block's meta once those are acked, then commits the raw block's offset. A crash between publish
 * and commit replays the block; downstream rows are keyed by natural ids, so replays are harmless.
 * A block that cannot be decoded, or whose records the broker refuses, goes to the dead-letter topic.
 */
export function createDecoder(deps: DecoderDeps): Decoder {
  const { kafka, topics, logger, metrics } = deps;
  const groupId = deps.groupId ?? DECODER_GROUP_ID;
  const compression = deps.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
  if (compression === CompressionTypes.GZIP) useFastGzip();
  const dlq = topics.blocksDeadLetters;
  const consumer = kafka.consumer({ groupId, ...groupTiming(deps.sessionTimeoutMs ?? 30_000), ...CONSUMER_FETCH, allowAutoTopicCreation: false });
  // Idempotent: a retried produce request cannot duplicate records (createIdempotentProducer: one
  // send at a time, a new producer after a failed one). Retries are unbounded (kafkajs warns that
  // bounded retries break idempotence): while the broker is away the decoder waits rather than skipping blocks.
  const producer = createIdempotentProducer(
    kafka,
    {
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { initialRetryTime: 300, maxRetryTime: 10_000, retries: Number.MAX_SAFE_INTEGER },
    },
    logger,
  );
  const admin = kafka.admin();
  const pool = createDecodePool(deps.workers ?? 0);
  let stopLag: () => void = () => {};
  let lastMcSeqno = -1;
  const watch = watchConsumer(consumer, logger);
  consumer.on(consumer.events.GROUP_JOIN, (e) => logger.info('joined consumer group', { group_id: groupId, assignment: e.payload.memberAssignment }));

  /** Start times of the produces in flight (one per partition being decoded). */
  const sending = new Set<{ since: number; topics: string[] }>();
  const send = async (topicMessages: TopicMessages[]) => {
    if (topicMessages.length === 0) return;
    const s = { since: Date.now(), topics: topicMessages.map((t) => t.topic) };
    sending.add(s);
    try {
      await producer.sendBatch({ topicMessages, compression, acks: -1 });
    } finally {
      sending.delete(s);
    }
  };
  function produceHealth(): HealthStatus {
    let oldest: { since: number; topics: string[] } | undefined;
    for (const s of sending) if (!oldest || s.since < oldest.since) oldest = s;
    const waited = oldest ? Date.now() - oldest.since : 0;
    if (!oldest || waited < PRODUCE_SLOW_MS) return { status: 'ok', reasons: [] };
    const reason = `Kafka has not acknowledged a produce to ${oldest.topics.join(', ')} for ${Math.round(waited / 1000)} s (broker away, or a topic deleted?); kafkajs retries it without end`;
    return { status: waited < PRODUCE_STALLED_MS ? 'degraded' : 'error', reasons: [reason] };
  }
  /** Partition counts of the record topics, read at start: records are bundled per partition. */
  let partitions: RecordPartitions = { transactions: 1, messages: 1, accountStates: 1 };
  const asTopic = (topic: string, records: OutRecord[]): TopicMessages[] => (records.length === 0 ? [] : [{ topic, messages: records }]);

  /** Records first; block metas only once every record of the blocks is acked. */
  async function publishBlocks(blocks: DecodedBlock[]) {
    await send([
      ...asTopic(topics.transactions, blocks.flatMap((b) => b.transactions)),
      ...asTopic(topics.messages, blocks.flatMap((b) => b.messages)),
      ...asTopic(topics.accountStates, blocks.flatMap((b) => b.accountStates)),
    ]);
    await send(asTopic(topics.blockMeta, blocks.map((b) => b.meta)));
  }

  /** In chunks the topic takes: a raw block near the size limit plus these headers would be refused for good. */
  async function publishDeadLetters(dead: DeadLetter[], source: Source) {
    const messages = dead.map((x) => ({
      key: x.message.key,
      value: x.message.value,
      headers: {
        error_kind: x.kind,
        error: x.error.message.slice(0, 1000),
        source_topic: source.topic,
        source_partition: String(source.partition),
        source_offset: x.message.offset,
        ...(x.key === null ? {} : { block_key: x.key }),
      },
    }));
    for (const chunk of deadLetterChunks(messages, deps.maxMessageBytes ?? MAX_MESSAGE_BYTES)) await send([{ topic: dlq, messages: chunk }]);
  }

  /**
   * Publishes a chunk. When the broker refuses the chunk's messages (too large, invalid), each block
   * is published on its own, and a block refused alone goes to the dead-letter topic: it would be
   * refused on every retry. Its records published before are harmless (rows are idempotent); without
   * its meta the index never counts it as stored.
   */
  async function publish(chunk: Chunk, source: Source) {
    const started = performance.now();
    const blocks = chunk.decoded.map((d) => d.block);
    let published = blocks;
    try {
      await publishBlocks(blocks);
    } catch (err) {
      if (!refusedMessages(err)) throw err;
      published = [];
      for (const { block, message } of chunk.decoded) {
        try {
          await publishBlocks([block]);
          published.push(block);
        } catch (one) {
          const code = refusedMessages(one);
          if (!code) throw one;
          const error = new Error(`Kafka refused the block's records (${code}): ${(one as Error).message}`);
          metrics.errors.inc({ kind: 'produce' });
          logger.error('block records refused by Kafka, sent to the dead-letter topic', { block_key: block.key, ...source, offset: message.offset, dead_letter_topic: dlq, err: error });
          chunk.dead.push({ message, kind: 'produce', error, key: block.key });
        }
      }
    }
    await publishDeadLetters(chunk.dead, source);
    metrics.produceDuration.observe((performance.now() - started) / 1000);
    for (const b of published) {
      metrics.blocks.inc();
      metrics.transactions.inc(b.txCount);
      if (b.mcSeqno > lastMcSeqno) {
        lastMcSeqno = b.mcSeqno;
        metrics.lastMcSeqno.set(b.mcSeqno);
      }
    }
  }

  function addOutcome(chunk: Chunk, message: KafkaMessage, outcome: DecodeOutcome, source: Source) {
    chunk.lastOffset = message.offset;
    if (outcome.ok) {
      chunk.decoded.push({ block: outcome.decoded, message });
      metrics.decodeDuration.observe(outcome.decoded.decodeMs / 1000);
      for (const skipped of outcome.decoded.skippedStates) {
        metrics.skippedStates.inc();
        logger.warn('account state unreadable, block published without it', { block_key: outcome.decoded.key, account: skipped.account, err: skipped.error });
      }
      return;
    }
    metrics.errors.inc({ kind: outcome.kind });
    logger.error('raw block failed to decode, sent to the dead-letter topic', {
      block_key: outcome.key,
      kind: outcome.kind,
      topic: source.topic,
      partition: source.partition,
      offset: message.offset,
      dead_letter_topic: dlq,
      err: outcome.error,
    });
    chunk.dead.push({ message, kind: outcome.kind, error: outcome.error, key: outcome.key });
  }

  /**
   * Decodes the next chunk while the previous one is being published (decoding is CPU, publishing
   * waits on the broker), and commits each chunk's offset only after its publish resolved, in order.
   */
  async function eachBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload) {
    const source = { topic: batch.topic, partition: batch.partition };
    let inFlight: Promise<Chunk> | undefined;
    const settle = async () => {
      if (!inFlight) return;
      const done = await inFlight;
      inFlight = undefined;
      resolveOffset(done.lastOffset);
      const next = (BigInt(done.lastOffset) + 1n).toString();
      await commitOffsetsIfNecessary({ topics: [{ topic: source.topic, partitions: [{ partition: source.partition, offset: next }] }] });
      await heartbeat();
    };
    let i = 0;
    const messages = batch.messages;
    while (i < messages.length && isRunning() && !isStale()) {
      const taken: KafkaMessage[] = [];
      let rawBytes = 0;
      while (i < messages.length && taken.length < CHUNK_MAX_BLOCKS && rawBytes < CHUNK_MAX_RAW_BYTES) {
        rawBytes += messages[i].value?.length ?? 0;
        taken.push(messages[i++]);
      }
      const outcomes = await Promise.all(taken.map((m) => pool.decode(m.value, m.key?.toString() ?? null, partitions)));
      const chunk: Chunk = { decoded: [], dead: [], lastOffset: taken[0].offset };
      taken.forEach((m, k) => addOutcome(chunk, m, outcomes[k], source));
      await settle();
      inFlight = publish(chunk, source).then(() => chunk);
      // Handled by settle(); without this, a failed publish would count as unhandled while we decode.
      inFlight.catch(() => {});
    }
    await settle();
  }

  return {
    deadLetterTopic: dlq,
    done: watch.stopped,
    async start() {
      await admin.connect();
      const created = await ensureTopics(admin, topicSpecs(topics, deps.partitions, deps.maxMessageBytes));
      if (created.length > 0) logger.info('created topics', { topics: created });
      const metadata = await admin.fetchTopicMetadata({ topics: [topics.transactions, topics.messages, topics.accountStates] });
      const count = (topic: string) => metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 1;
      partitions = { transactions: count(topics.transactions), messages: count(topics.messages), accountStates: count(topics.accountStates) };
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: [topics.blocks], fromBeginning: true });
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: deps.concurrency ?? 2, eachBatch });
      stopLag = pollConsumerLag({
        admin,
        groupId,
        topics: [topics.blocks],
        intervalMs: LAG_POLL_MS,
        onLag: (lag) => lag.forEach((p) => metrics.consumerLag.set({ topic: p.topic, partition: String(p.partition) }, p.lag)),
        onError: (err) => logger.warn('consumer lag poll failed', { err }),
      });
      logger.info('decoder started', { group_id: groupId, topic: topics.blocks, dead_letter_topic: dlq, workers: deps.workers ?? 0 });
    },
    async stop() {
      stopLag();
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
      await pool.close();
      logger.info('decoder stopped', { last_mc_seqno: lastMcSeqno });
    },
    health: () => combineHealth(watch.health(), produceHealth()),
  };
}
