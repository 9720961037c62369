import { isProgrammingError, isRetriable } from '@tonstream/errors';
import { CONSUMER_FETCH, createIdempotentProducer, deadLetterChunks, ensureTopics, groupTiming, MAX_MESSAGE_BYTES, pollConsumerLag, topicSpecs, type Topics, watchConsumer } from '@tonstream/bus';
import { MAX_RECORD_CHARS } from '@tonstream/records';
import { combineHealth, type HealthStatus, type Logger } from '@tonstream/runtime';
import { type HotTier, hotTierProblem, initHotTier, migrate, rebuildHotTierOnce, type RecordBatch, recordHotBreak, type Store, writeBatch, writeHotBatch } from '@tonstream/store';
import type { EachBatchPayload, Kafka, Message } from 'kafkajs';
import type { PendingBatch } from './accumulator.js';
import { createChainLag } from './chain-lag.js';
import type { WriterMetrics } from './metrics.js';
import { type DeadLetter, readMessage, topicKinds } from './records.js';
import { abortableSleep, DEFAULT_RETRY, retryWhileRetriable, type RetryPolicy } from './retry.js';
import { createSink } from './sink.js';
import { createWatermarkKeeper, indexTrack, tracesTrack } from './watermark.js';

/** Consumer group of every writer instance. */
export const WRITER_GROUP_ID = 'tonstream-writer';
/** Two batches in flight keep ClickHouse busy while the next batch is parsed and serialized. */
const MAX_IN_FLIGHT_BATCHES = 2;
/** Interval of the progress log line and of the lag gauges. */
const PROGRESS_MS = 5_000;
/** A hot tier write is tried this often, HOT_RETRY_MS apart, before the tier is marked broken. */
const HOT_WRITE_ATTEMPTS = 3;
const HOT_RETRY_MS = 300;
/** After a failed hot tier write or rebuild, the tier is checked (and rebuilt if it must) this much later. */
const HOT_HEAL_MS = 30_000;
const LAG_POLL_MS = 5_000;

export type WriterDeps = {
  kafka: Kafka;
  topics: Topics;
  store: Store;
  logger: Logger;
  metrics: WriterMetrics;
  /** Consumer group. Default `tonstream-writer` (main.ts prefixes it with the topic prefix). */
  groupId?: string;
  /** How long the consumer may go silent before the group gives its partitions away (KAFKA_SESSION_TIMEOUT_MS). Default 30 s, kafkajs' own. */
  sessionTimeoutMs?: number;
  /** Partitions of the topics it creates (KAFKA_PARTITIONS). Default 4. */
  partitions?: number;
  /** Records per ClickHouse batch at most. Default 10,000. */
  batchRows?: number;
  /** Longest wait before a partial batch is written. Default 200 ms. */
  flushMs?: number;
  /** Backoff while ClickHouse (or Kafka, for dead letters) is unavailable. Default 250 ms doubling to 10 s. */
  retry?: RetryPolicy;
  /** Largest record accepted (characters of JSON); bigger ones are dead-lettered. Default MAX_RECORD_CHARS. */
  maxRecordChars?: number;
  /** `max.message.bytes` the topics must allow (checked at start). Default MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** The hot tier, written with every batch before its receipts (a failed write is recorded as a break: hot/gate.ts). */
  hot?: HotTier;
  /**
   * Keep the index's watermarks (WRITER_WATERMARKS). Off for a history lane's writer: it stores rows and
   * receipts below the live index, whose writers keep the watermarks; the backfill checks its ranges.
   * @default true
   */
  keepWatermarks?: boolean;
};

export type Writer = {
  /** Migrates the schema, ensures the topics and starts consuming. */
  start(): Promise<void>;
  /** Stops fetching, stores and commits what was consumed, disconnects. */
  stop(): Promise<void>;
  health(): HealthStatus;
  /** Rejects when a write fails for good or the consumer stops for good: the process should exit non-zero. */
  readonly done: Promise<void>;
};

/** A dead letter as the records dead-letter topic holds it: the refused text, the reason and where it came from. */
function deadLetterMessage(d: DeadLetter): Message {
  return {
    key: d.key,
    value: d.value,
    headers: {
      error: d.reason.slice(0, 1000),
      source_topic: d.source.topic,
      source_partition: String(d.source.partition),
      source_offset: d.source.offset,
      ...(d.line === null ? {} : { source_line: String(d.line) }),
    },
  };
}

/**
 * The writer: consumes the decoder's topics, checks every record, writes batches to ClickHouse and
 * commits their offsets only after ClickHouse acknowledged every row (and Kafka every dead letter).
 * While ClickHouse is unavailable the same batch is retried with backoff and consumption is paused;
 * nothing is committed or dropped meanwhile. A refused record goes to the records dead-letter topic
 * with its reason; it never stops the writer. After each batch the watermark is moved forward.
 */
export function createWriter(deps: WriterDeps): Writer {
  const { kafka, topics, store, logger, metrics, hot } = deps;
  const groupId = deps.groupId ?? WRITER_GROUP_ID;
  const kinds = topicKinds(topics);
  const consumed = [...kinds.keys()];
  const consumer = kafka.consumer({ groupId, ...groupTiming(deps.sessionTimeoutMs ?? 30_000), ...CONSUMER_FETCH, allowAutoTopicCreation: false });
  // Dead letters are produced before their batch's offsets commit; idempotent, retried while Kafka is away.
  const producer = createIdempotentProducer(kafka, { allowAutoTopicCreation: false }, logger);
  const admin = kafka.admin();
  const maxRecordChars = deps.maxRecordChars ?? MAX_RECORD_CHARS;
  const watermark = createWatermarkKeeper({
    store,
    logger,
    track: indexTrack(logger),
    onAdvance: (w, freshness) => {
      metrics.lastMcSeqno.set(w.mc_seqno);
      metrics.watermarkUtime.set(w.gen_utime);
      for (const f of freshness) metrics.indexedFreshness.observe(f);
    },
  });
  const tracesWatermark = createWatermarkKeeper({ store, logger, track: tracesTrack, onAdvance: (w) => metrics.tracesMcSeqno.set(w.mc_seqno) });
  const chain = createChainLag();
  const abort = new AbortController();
  let stopLag: () => void = () => {};
  let progressTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let retrying = 0;
  let rowsSinceProgress = 0;
  let lastProgressAt = Date.now();
  let health: HealthStatus = { status: 'ok', reasons: [] };
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((_resolve, reject) => (fail = reject));
  done.catch(() => {}); // observed by the caller; not an unhandled rejection if nobody waits
  // A consumer gone for good leaves nothing consuming: fail, so the process exits and its supervisor
  // restarts it (uncommitted messages are consumed again).
  const watch = watchConsumer(consumer, logger);
  watch.stopped.catch(fail);

  const pauseAll = () => consumer.pause(consumed.map((topic) => ({ topic })));
  const resumeAll = () => consumer.resume(consumed.map((topic) => ({ topic })));

  async function sendDeadLetters(dead: DeadLetter[]) {
    if (dead.length === 0) return;
    // In chunks the topic takes (a refused produce would be retried forever), a too big one cut.
    for (const messages of deadLetterChunks(dead.map(deadLetterMessage), deps.maxMessageBytes ?? MAX_MESSAGE_BYTES)) await producer.send({ topic: topics.recordsDeadLetters, acks: -1, messages });
    for (const d of dead) metrics.deadLetters.inc({ topic: d.source.topic });
  }

  /**
   * At start, and HOT_HEAL_MS after a failed write or rebuild: an empty index starts the tier with it; a
   * tier that cannot answer (never built, Redis restarted, a failed write) is rebuilt from ClickHouse in
   * the background by one writer, while batches are written (and added to it) as usual.
   */
  let healing: NodeJS.Timeout | undefined;
  const healLater = (tier: HotTier) => {
    if (healing || stopping) return;
    healing = setTimeout(() => {
      healing = undefined;
      void prepareHotTier(tier);
    }, HOT_HEAL_MS);
    healing.unref();
  };
  async function prepareHotTier(tier: HotTier) {
    try {
      if (await initHotTier(tier, store)) return logger.info('hot tier started with the index', { prefix: tier.prefix });
      const problem = await hotTierProblem(tier, store);
      if (problem === null) return;
      logger.info('hot tier cannot answer: rebuilding it from ClickHouse in the background', { prefix: tier.prefix, reason: problem });
      const started = Date.now();
      void rebuildHotTierOnce(store, tier).then(
        (meta) => logger.info(meta ? 'hot tier rebuilt' : 'hot tier being rebuilt by another process', { prefix: tier.prefix, seconds: (Date.now() - started) / 1000 }),
        (err: unknown) => {
          logger.warn('hot tier rebuild failed: the API reads ClickHouse; trying again later', { err: (err as Error).message });
          healLater(tier);
        },
      );
    } catch (err) {
      logger.warn('hot tier not prepared: the API reads ClickHouse; trying again later', { err: (err as Error).message });
      healLater(tier);
    }
  }

  /**
   * The batch's states to the hot tier. When Redis fails, the tier is marked broken in ClickHouse
   * before the receipts (the API then reads ClickHouse until it is rebuilt): indexing goes on.
   */
  async function writeHot(tier: HotTier, batch: RecordBatch, rows: Parameters<typeof writeHotBatch>[2]) {
    // A blip (a reconnect) is waited out briefly: a break costs a rebuild.
    const attempt = (n: number): Promise<void> => writeHotBatch(tier, batch, rows).catch(async (err: unknown) => (n >= HOT_WRITE_ATTEMPTS ? Promise.reject(err) : (await abortableSleep(HOT_RETRY_MS, abort.signal), attempt(n + 1))));
    try {
      await attempt(1);
    } catch (err) {
      metrics.hotTierFailures.inc();
      logger.warn('hot tier write failed: marked broken, the API reads ClickHouse until `npm run hot:rebuild`', { err: (err as Error).message });
      await recordHotBreak(store, tier, (err as Error).message);
      healLater(tier);
    }
  }

  /**
   * Stores a batch: dead letters to Kafka, then rows, then receipts, waiting out outages of either;
   * consumption is paused while any batch is retrying.
   */
  async function write(pending: PendingBatch) {
    let counted = false;
    let deadSent = false;
    const storeOnce = async () => {
      if (!deadSent) {
        await sendDeadLetters(pending.dead);
        deadSent = true;
      }
      return writeBatch(store, pending.batch, hot && ((rows) => writeHot(hot, pending.batch, rows)));
    };
    try {
      const result = await retryWhileRetriable(storeOnce, {
        policy: deps.retry ?? DEFAULT_RETRY,
        signal: abort.signal,
        // A Kafka error reaches here only after kafkajs's own retries: keep waiting, as for ClickHouse (not for a bug).
        isRetriable: (err) => (deadSent ? isRetriable(err) : !isProgrammingError(err)),
        onRetry: (err, attempt, delayMs) => {
          metrics.retries.inc();
          const what = deadSent ? 'ClickHouse' : 'Kafka (dead letters)';
          if (deadSent) metrics.clickhouseUp.set(0);
          health = { status: 'degraded', reasons: [`${what} unavailable, retrying`] };
          logger.warn(`${what} unavailable, retrying the same batch`, { attempt, delay_ms: delayMs, batch: pending.id, records: pending.records, err: (err as Error).message });
          if (!counted) {
            counted = true;
            if (retrying++ === 0) pauseAll();
          }
        },
      });
      metrics.clickhouseUp.set(1);
      if (health.status !== 'error') health = { status: 'ok', reasons: [] };
      for (const [table, n] of Object.entries(result.byTable)) if (n > 0) metrics.rows.inc({ table }, n);
      rowsSinceProgress += result.rows;
      if (deps.keepWatermarks !== false) {
        watermark.poke();
        if (pending.batch.traceReceipts.length > 0) tracesWatermark.poke();
      }
    } finally {
      if (counted && --retrying === 0 && !stopping) resumeAll();
    }
  }

  const sink = createSink({
    batchRecords: deps.batchRows ?? 10_000,
    flushMs: deps.flushMs ?? 200,
    maxInFlight: MAX_IN_FLIGHT_BATCHES,
    write,
    commit: (commits) => consumer.commitOffsets(commits),
    onStored: (pending, durationMs) => {
      metrics.batchRecords.observe(pending.records);
      metrics.flushDuration.observe(durationMs / 1000);
      for (const f of chain.written(pending.blocks)) metrics.freshness.observe(f);
      if (logger.isEnabled('debug')) logger.debug('batch stored', { batch: pending.id, records: pending.records, duration_ms: Math.round(durationMs) });
    },
    onCommitError: (err, commits) => logger.warn('offset commit failed; trying again', { err, commits }),
    onFatal: (err) => {
      health = { status: 'error', reasons: [`store write failed: ${(err as Error).message}`] };
      logger.error('non-retriable store error: stopping so a supervisor restarts the writer (uncommitted batches are replayed)', { err });
      fail(err);
    },
  });

  async function eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const kind = kinds.get(batch.topic);
    if (!kind) return;
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || stopping || sink.failed) return;
      if (!sink.hasRoom()) await sink.waitForRoom(heartbeat);
      if (stopping || sink.failed) return;
      const position = { topic: batch.topic, partition: batch.partition, offset: message.offset };
      const consumed = readMessage(kind, message, position, maxRecordChars);
      for (const d of consumed.dead) logger.error('record refused, sent to the dead-letter topic', { ...position, line: d.line, reason: d.reason, dead_letter_topic: topics.recordsDeadLetters });
      let completesMc = false;
      for (const item of consumed.items) {
        if (item.kind !== 'blocks') continue;
        chain.seen({ mcSeqno: item.record.mc_block_seqno ?? 0, seenAtMs: item.seenAtMs });
        if (item.record.workchain !== -1) continue;
        completesMc = true;
        if (item.seenAtMs !== null) watermark.seen(item.record.seqno, item.seenAtMs);
      }
      sink.add(consumed, position);
      // A masterchain block's meta at the end of its partition (caught up, not catching up): write now
      // rather than after flushMs, so the watermark can reach the block at once.
      if (completesMc && BigInt(message.offset) + 1n >= BigInt(batch.highWatermark)) sink.flushNow();
      // Moves the fetch position only; offsets are committed by the sink once ClickHouse has the rows.
      resolveOffset(message.offset);
    }
    await heartbeat();
  }

  function progress() {
    const t = Date.now();
    const snap = chain.snapshot();
    metrics.lagBlocks.set(snap.lagBlocks);
    metrics.lagSeconds.set(snap.lagSeconds);
    const rowsPerS = rowsSinceProgress / Math.max(0.001, (t - lastProgressAt) / 1000);
    const w = watermark.status();
    const tw = tracesWatermark.status();
    metrics.watermarkStuck.set(w.stuck ? 1 : 0);
    logger.info('progress', {
      rows_per_s: Math.round(rowsPerS),
      watermark: w.watermark?.mc_seqno ?? null,
      ...(w.waiting && w.waitingMs > PROGRESS_MS ? { watermark_waiting: w.waiting } : {}),
      traces_watermark: tw.watermark?.mc_seqno ?? null,
      ...(tw.waiting && tw.waitingMs > PROGRESS_MS ? { traces_watermark_waiting: tw.waiting } : {}),
      last_mc_seqno: snap.lastWrittenMc,
      lag_blocks: snap.lagBlocks,
      lag_seconds: Number(snap.lagSeconds.toFixed(3)),
      buffered: sink.buffered,
      in_flight: sink.inFlight,
    });
    rowsSinceProgress = 0;
    lastProgressAt = t;
  }

  return {
    done,
    async start() {
      const migrated = await retryWhileRetriable(() => migrate(store), {
        policy: deps.retry ?? DEFAULT_RETRY,
        signal: abort.signal,
        isRetriable,
        onRetry: (err, attempt, delayMs) => logger.warn('ClickHouse unavailable at start, retrying migrations', { attempt, delay_ms: delayMs, err: (err as Error).message }),
      });
      logger.info('schema migrated', { database: store.database, applied: migrated.applied, version: migrated.current });
      if (hot) await prepareHotTier(hot);
      metrics.clickhouseUp.set(1);
      await admin.connect();
      const created = await ensureTopics(admin, topicSpecs(topics, deps.partitions, deps.maxMessageBytes));
      if (created.length > 0) logger.info('created topics', { topics: created });
      consumer.on(consumer.events.GROUP_JOIN, (e) => logger.info('joined consumer group', { group_id: groupId, assignment: e.payload.memberAssignment }));
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: consumed, fromBeginning: true });
      // Each topic's dead-letter series exists from the start, at 0 (dashboards show "none", not "no data").
      for (const topic of consumed) metrics.deadLetters.inc({ topic }, 0);
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 1, eachBatch });
      stopLag = pollConsumerLag({
        admin,
        groupId,
        topics: consumed,
        intervalMs: LAG_POLL_MS,
        onLag: (lag) => lag.forEach((p) => metrics.consumerLag.set({ topic: p.topic, partition: String(p.partition) }, p.lag)),
        onError: (err) => logger.warn('consumer lag poll failed', { err }),
      });
      progressTimer = setInterval(progress, PROGRESS_MS);
      progressTimer.unref();
      if (deps.keepWatermarks !== false) {
        watermark.start();
        tracesWatermark.start();
      }
      logger.info('writer started', { group_id: groupId, topics: consumed, database: store.database });
    },
    async stop() {
      stopping = true;
      stopLag();
      clearInterval(progressTimer);
      clearTimeout(healing);
      try {
        pauseAll();
      } catch {
        // Not running yet (start failed): nothing was consumed.
      }
      // Store and commit what was consumed; a batch still failing when the shutdown timeout hits is
      // simply not committed and comes back after the restart.
      await sink.drain();
      await watermark.stop();
      await tracesWatermark.stop();
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
      abort.abort();
      progress();
      logger.info('writer stopped');
    },
    health() {
      const w = watermark.status();
      const tw = tracesWatermark.status();
      const problems = [...watermark.problems(), ...tracesWatermark.problems()];
      return {
        ...combineHealth(watch.health(), health, { status: problems.length > 0 ? 'degraded' : 'ok', reasons: problems }),
        details: {
          watermark_mc_seqno: w.watermark?.mc_seqno ?? null,
          watermark_gen_utime: w.watermark?.gen_utime ?? null,
          watermark_waiting: w.waiting,
          watermark_stuck: w.stuck,
          traces_watermark_mc_seqno: tw.watermark?.mc_seqno ?? null,
          traces_watermark_waiting: tw.waiting,
        },
      };
    },
  };
}
