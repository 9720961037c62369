import { CONSUMER_FETCH, ensureTopics, pollConsumerLag, topicSpecs, type Topics } from '@tonstream/bus';
import type { HealthStatus, Logger } from '@tonstream/runtime';
import { migrate, type Store, StoreError, writeBatch } from '@tonstream/store';
import type { EachBatchPayload, Kafka } from 'kafkajs';
import type { PendingBatch } from './accumulator.js';
import { createChainLag } from './chain-lag.js';
import type { WriterMetrics } from './metrics.js';
import { parseBundle, topicKinds } from './records.js';
import { DEFAULT_RETRY, retryWhileRetriable, type RetryPolicy } from './retry.js';
import { createSink } from './sink.js';

/** Consumer group of every writer instance. */
export const WRITER_GROUP_ID = 'tonstream-writer';
/** Two batches in flight keep ClickHouse busy while the next batch is parsed and serialized. */
const MAX_IN_FLIGHT_BATCHES = 2;
/** Interval of the progress log line and of the lag gauges. */
const PROGRESS_MS = 5_000;
const LAG_POLL_MS = 5_000;

export type WriterDeps = {
  kafka: Kafka;
  topics: Topics;
  store: Store;
  logger: Logger;
  metrics: WriterMetrics;
  /** Consumer group. Default `tonstream-writer` (main.ts prefixes it with the topic prefix). */
  groupId?: string;
  /** Records per ClickHouse batch at most. Default 10,000. */
  batchRows?: number;
  /** Longest wait before a partial batch is written. Default 200 ms. */
  flushMs?: number;
  /** Backoff while ClickHouse is unavailable. Default 250 ms doubling to 10 s. */
  retry?: RetryPolicy;
};

export type Writer = {
  /** Migrates the schema, ensures the topics and starts consuming. */
  start(): Promise<void>;
  /** Stops fetching, stores and commits what was consumed, disconnects. */
  stop(): Promise<void>;
  health(): HealthStatus;
  /** Rejects when a write fails for good (non-retriable): the process should exit non-zero. */
  readonly done: Promise<void>;
};

/**
 * The writer: consumes the decoder's topics, writes batches to ClickHouse and commits their offsets
 * only after ClickHouse acknowledged every row. While ClickHouse is unavailable the same batch is
 * retried with backoff and consumption is paused; nothing is committed or dropped meanwhile.
 */
export function createWriter(deps: WriterDeps): Writer {
  const { kafka, topics, store, logger, metrics } = deps;
  const groupId = deps.groupId ?? WRITER_GROUP_ID;
  const kinds = topicKinds(topics);
  const consumed = [...kinds.keys()];
  const consumer = kafka.consumer({ groupId, ...CONSUMER_FETCH, allowAutoTopicCreation: false });
  const admin = kafka.admin();
  const chain = createChainLag();
  const abort = new AbortController();
  let stopLag: () => void = () => {};
  let progressTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let retrying = 0;
  let rowsSinceProgress = 0;
  let lastProgressAt = Date.now();
  let health: HealthStatus = { status: 'degraded', reasons: ['starting'] };
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((_resolve, reject) => (fail = reject));
  done.catch(() => {}); // observed by the caller; not an unhandled rejection if nobody waits

  const pauseAll = () => consumer.pause(consumed.map((topic) => ({ topic })));
  const resumeAll = () => consumer.resume(consumed.map((topic) => ({ topic })));

  /** Stores a batch, waiting out ClickHouse outages; consumption is paused while any batch is retrying. */
  async function write(pending: PendingBatch) {
    let counted = false;
    try {
      const result = await retryWhileRetriable(() => writeBatch(store, pending.batch), {
        policy: deps.retry ?? DEFAULT_RETRY,
        signal: abort.signal,
        isRetriable: (err) => err instanceof StoreError && err.retriable,
        onRetry: (err, attempt, delayMs) => {
          metrics.retries.inc();
          metrics.clickhouseUp.set(0);
          health = { status: 'degraded', reasons: ['ClickHouse unavailable, retrying'] };
          logger.warn('ClickHouse unavailable, retrying the same batch', { attempt, delay_ms: delayMs, batch: pending.id, records: pending.records, err: (err as Error).message });
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
      const snap = chain.snapshot();
      if (snap.lastWrittenMc >= 0) metrics.lastMcSeqno.set(snap.lastWrittenMc);
      if (logger.isEnabled('debug')) logger.debug('batch stored', { batch: pending.id, records: pending.records, duration_ms: Math.round(durationMs) });
    },
    onCommitError: (err, commits) => logger.warn('offset commit failed; the batch will be written again after a restart', { err, commits }),
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
      const { items, invalid } = parseBundle(kind, message.value, message.headers);
      for (const err of invalid) {
        metrics.invalid.inc({ topic: batch.topic });
        logger.error('skipping a record that is not usable', { ...position, err });
      }
      for (const item of items) if (item.kind === 'blocks') chain.seen({ mcSeqno: item.record.mc_block_seqno ?? 0, seenAtMs: item.seenAtMs });
      sink.add(items, position);
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
    logger.info('progress', {
      rows_per_s: Math.round(rowsPerS),
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
        isRetriable: (err) => err instanceof StoreError && err.retriable,
        onRetry: (err, attempt, delayMs) => logger.warn('ClickHouse unavailable at start, retrying migrations', { attempt, delay_ms: delayMs, err: (err as Error).message }),
      });
      logger.info('schema migrated', { database: store.database, applied: migrated.applied, version: migrated.current });
      metrics.clickhouseUp.set(1);
      await admin.connect();
      const created = await ensureTopics(admin, topicSpecs(topics));
      if (created.length > 0) logger.info('created topics', { topics: created });
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        if (health.status === 'degraded' && health.reasons[0] === 'starting') health = { status: 'ok', reasons: [] };
        logger.info('joined consumer group', { group_id: groupId, assignment: e.payload.memberAssignment });
      });
      consumer.on(consumer.events.CRASH, (e) => logger.error('consumer crashed', { err: e.payload.error, restart: e.payload.restart }));
      await consumer.connect();
      await consumer.subscribe({ topics: consumed, fromBeginning: true });
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
      logger.info('writer started', { group_id: groupId, topics: consumed, database: store.database });
    },
    async stop() {
      stopping = true;
      stopLag();
      clearInterval(progressTimer);
      try {
        pauseAll();
      } catch {
        // Not running yet (start failed): nothing was consumed.
      }
      // Store and commit what was consumed; a batch still failing when the shutdown timeout hits is
      // simply not committed and comes back after the restart.
      await sink.drain();
      await consumer.disconnect();
      await admin.disconnect();
      abort.abort();
      progress();
      logger.info('writer stopped');
    },
    health: () => health,
  };
}
