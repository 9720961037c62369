import { rethrowBugs } from '@tonstream/errors';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CONSUMER_FETCH, type DecodedTopic, ensureTopics, readDecodedMessage, topicSpecs, type Topics, watchConsumer } from '@tonstream/bus';
import type { Logger } from '@tonstream/runtime';
import { readWatermark, type Store } from '@tonstream/store';
import {
  blockEvents,
  createCollector,
  createTraceLinks,
  createTracerJoin,
  decodePendingTraceMessage,
  jettonWalletOf,
  pendingEvents,
  type BlockEvent,
  type EventTx,
  type Fanout,
  type McRecords,
} from '@tonstream/streaming';
import { type ActionRecord, joinTransactions, type TraceRecord } from '@tonstream/traces';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Emitter } from './emit-queue.js';
import type { StreamerMetrics } from './metrics.js';

/** A trace's undelivered messages are followed this many masterchain blocks (~25 min of mainnet). */
const TRACE_LINK_MAX_AGE_MC_BLOCKS = 1000;
/** Externals of recent on-chain traces remembered to refuse late emulations (a few minutes of mainnet). */
const ON_CHAIN_KEPT = 100_000;
/** See CollectorOptions. */
const START_MARGIN_MC_BLOCKS = 3;
const SKIP_INCOMPLETE_AFTER_MC_BLOCKS = 8;
/** A block trailing later whole ones is reported once it has for this long (its partition may just be read later). */
const STALL_REPORTED_AFTER_MS = 2_000;
/** A block given up on stays in the health warnings this long: its events are incomplete, an operator should see which. */
const GIVE_UP_REPORTED_MS = 15 * 60_000;
/** Given-up blocks remembered for the health warnings (newest last). */
const GIVE_UPS_KEPT = 10;
/** How often held blocks are looked at again (their wait for the tracer may have run out). */
const HOLD_CHECK_MS = 100;
/**
 * Blocks wait for the tracer only while one runs: its consumer group has members (looked up this
 * often), or it published within TRACER_RECENT_MS. Without a tracer nothing would come, and every
 * block completing a trace would be late by the whole wait.
 */
const TRACER_CHECK_MS = 5_000;
const TRACER_RECENT_MS = 60_000;
/** The tracer's consumer group (services/tracer TRACER_GROUP_ID), under the deployment's topic prefix. */
const TRACER_GROUP = 'tonstream-tracer';
const OFFSET_LOOKUP_ATTEMPTS = 20;
/** How often a reader paused for the watermark (maxUnfinalizedBlocks) looks again. */
const UNFINALIZED_WAIT_MS = 500;

export type SourceOptions = {
  kafka: Kafka;
  topics: Topics;
  /** Partitions of the topics it creates (KAFKA_PARTITIONS). Default 4. */
  partitions?: number;
  store: Store;
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  watermarkPollMs: number;
  replayMs: number;
  /** How long a whole block waits for the tracer's records of the traces it completed (0: never). */
  tracerWaitMs: number;
  /**
   * Confirmed blocks waiting for the watermark (to be emitted again as finalized): at this many,
   * reading the topics pauses until it moves, so a stalled writer or ClickHouse bounds memory instead
   * of growing it, and no finalized step is skipped.
   */
  maxUnfinalizedBlocks: number;
  /** When a masterchain block that does not complete goes out with the records that arrived (CollectorOptions.giveUp). */
  giveUp: { afterMcBlocks: number; afterMs: number };
  /** Where emissions go, in order (emit-queue.ts: looks up `address_book` / `metadata` first); default the fan-out itself. */
  emitter?: Emitter;
};

type HeldBlock = { mc: number; txEvents: BlockEvent[]; stateEvents: BlockEvent[]; completed: ReadonlyMap<string, string>; since: number; started: number };

/**
 * Feeds the fan-out from the decoded topics: each streamer reads every partition itself (its own
 * consumer group, nothing committed), starting `replayMs` back in Kafka time so a restarted process
 * refills its resume window. A whole masterchain block becomes its `confirmed` step; once the
 * watermark (ClickHouse) covers it, the same events are emitted again as its `finalized` step.
 */
export function createSource(o: SourceOptions) {
  const kinds = new Map<string, DecodedTopic>([
    [o.topics.transactions, 'transactions'],
    [o.topics.messages, 'messages'],
    [o.topics.accountStates, 'accountStates'],
    [o.topics.blockMeta, 'meta'],
  ]);
  const out: Emitter = o.emitter ?? o.fanout;
  const groupId = `${o.topics.blocks.replace(/ton\.blocks$/, '')}tonstream-streamer-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // Topics come from ensureTopics (their settings); one deleted under the consumer is a crash, not a new topic with the broker's defaults.
  const consumer = o.kafka.consumer({ groupId, ...CONSUMER_FETCH, sessionTimeout: 30_000, allowAutoTopicCreation: false });
  const watch = watchConsumer(consumer, o.logger);
  const admin = o.kafka.admin();
  const collector = createCollector({ startMarginMcBlocks: START_MARGIN_MC_BLOCKS, skipIncompleteAfterMcBlocks: SKIP_INCOMPLETE_AFTER_MC_BLOCKS, giveUp: o.giveUp });
  const givenUp: { mcSeqno: number; at: number; missing: string }[] = [];
  const links = createTraceLinks(TRACE_LINK_MAX_AGE_MC_BLOCKS);
  const join = createTracerJoin(TRACE_LINK_MAX_AGE_MC_BLOCKS);
  const held: HeldBlock[] = [];
  /**
   * External hashes (normalized) of traces the chain already ran, newest last: an emulation that
   * arrives after its block is stale, and a client must never see pending after confirmed.
   */
  const onChain = new Set<string>();
  const markOnChain = (norms: Iterable<string>) => {
    for (const n of norms) {
      onChain.delete(n);
      onChain.add(n);
    }
    for (const n of onChain) {
      if (onChain.size <= ON_CHAIN_KEPT) break;
      onChain.delete(n);
    }
  };
  let holdTimer: NodeJS.Timeout | undefined;
  let tracerTimer: NodeJS.Timeout | undefined;
  let tracerGroupActive = false;
  let tracerSeenAt = Number.NEGATIVE_INFINITY;
  const tracerRunning = () => tracerGroupActive || Date.now() - tracerSeenAt < TRACER_RECENT_MS;
  const unfinalized: { mc: number; events: BlockEvent[] }[] = [];
  let watermark: number | null = null;
  let lastConfirmed: number | null = null;
  let watermarkError: string | null = null;
  let waitingForWatermark = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  const finalize = () => {
    while (unfinalized.length > 0 && watermark !== null && unfinalized[0].mc <= watermark) {
      const { mc, events } = unfinalized.shift()!;
      out.emit('finalized', mc, events);
      o.metrics.events.inc({ stage: 'finalized' }, events.length);
      o.metrics.lastMcSeqno.set({ stage: 'finalized' }, mc);
    }
    o.metrics.unfinalizedBlocks.set(unfinalized.length);
  };

  /**
   * A whole block's own events are built at once; its `actions`/`trace` events (the traces it
   * completed) need the tracer's records, so the block is held until they are here, or
   * `tracerWaitMs` passed (then it goes without them). Blocks leave in seqno order.
   */
  const hold = (block: McRecords) => {
    const started = performance.now();
    if (block.missing !== undefined) {
      o.logger.warn('gave up waiting for a masterchain block: its events carry the records that arrived', { mc_seqno: block.mcSeqno, missing: block.missing, transactions: block.transactions.length });
      o.metrics.givenUp.inc();
      givenUp.push({ mcSeqno: block.mcSeqno, at: Date.now(), missing: block.missing });
      if (givenUp.length > GIVE_UPS_KEPT) givenUp.shift();
    }
    const transactions = joinTransactions(block.transactions, block.messages);
    const all = blockEvents(transactions, links.assign(block.mcSeqno, transactions), block.accountStates, [], jettonWalletOf);
    const txEvents = all.filter((e) => e.type === 'transactions');
    markOnChain(txEvents.map((e) => e.norm));
    join.addTransactions(block.mcSeqno, txEvents.map((e) => [e.norm, (e as { txs: EventTx[] }).txs]));
    join.expire(block.mcSeqno);
    held.push({ mc: block.mcSeqno, txEvents, stateEvents: all.filter((e) => e.type !== 'transactions'), completed: new Map(links.completed), since: Date.now(), started: performance.now() - started });
  };

  const release = () => {
    // At the bound, what a batch completed beyond it stays held: the bound is exact, not one batch over it.
    while (held.length > 0 && unfinalized.length < o.maxUnfinalizedBlocks) {
      const h = held[0];
      if (!join.ready(h.completed) && tracerRunning() && Date.now() - h.since < o.tracerWaitMs) break;
      held.shift();
      const started = performance.now();
      const events = [...h.txEvents, ...join.take(h.completed), ...h.stateEvents];
      out.emit('confirmed', h.mc, events);
      lastConfirmed = h.mc;
      unfinalized.push({ mc: h.mc, events });
      o.metrics.events.inc({ stage: 'confirmed' }, events.length);
      o.metrics.lastMcSeqno.set({ stage: 'confirmed' }, h.mc);
      o.metrics.blockDuration.observe((performance.now() - started) / 1000 + h.started / 1000);
    }
    finalize();
  };

  const tracerRecord = (topic: 'traces' | 'actions', message: KafkaMessage) => {
    tracerSeenAt = Date.now();
    try {
      const lines = (message.value ?? Buffer.alloc(0)).toString('utf8').split('\n').filter(Boolean);
      if (topic === 'traces') for (const l of lines) join.addTrace(JSON.parse(l) as TraceRecord);
      else {
        const actions = lines.map((l) => JSON.parse(l) as ActionRecord);
        const id = message.key?.toString() ?? actions[0]?.trace_id;
        if (id) join.addActions(id, actions);
      }
    } catch (err) {
      rethrowBugs(err);
      o.metrics.refused.inc();
      o.logger.warn('tracer record refused', { topic, offset: message.offset, reason: (err as Error).message });
    }
  };

  const pendingRecord = (message: KafkaMessage) => {
    try {
      const m = decodePendingTraceMessage(message.value ?? '');
      if (m.kind === 'invalidated') out.invalidate(m.hashNorm);
      else if (onChain.has(m.hashNorm)) o.metrics.stalePending.inc();
      else out.emitPending(pendingEvents(m));
    } catch (err) {
      rethrowBugs(err);
      o.metrics.refused.inc();
      o.logger.warn('pending trace record refused', { offset: message.offset, reason: (err as Error).message });
    }
  };

  async function eachBatch({ batch, heartbeat, isRunning }: EachBatchPayload) {
    if (batch.topic === o.topics.traces || batch.topic === o.topics.actions) {
      for (const message of batch.messages) tracerRecord(batch.topic === o.topics.traces ? 'traces' : 'actions', message);
      release();
      return;
    }
    if (batch.topic === o.topics.pendingTraces) {
      for (const message of batch.messages) pendingRecord(message);
      return;
    }
    const kind = kinds.get(batch.topic);
    if (!kind) return;
    while (unfinalized.length >= o.maxUnfinalizedBlocks && isRunning() && running) {
      waitingForWatermark = true;
      await heartbeat();
      await new Promise((r) => setTimeout(r, UNFINALIZED_WAIT_MS));
    }
    waitingForWatermark = false;
    for (const message of batch.messages) {
      if (!isRunning()) return;
      const c = readDecodedMessage(kind, message, (reason) => {
        o.metrics.refused.inc();
        o.logger.warn('record refused', { topic: batch.topic, partition: batch.partition, offset: message.offset, reason });
      });
      if (c) collector.add(c, batch);
    }
    for (let block = collector.take(Date.now()); block; block = collector.take(Date.now())) hold(block);
    release();
    await heartbeat();
  }

  const pollWatermark = async () => {
    try {
      const w = await readWatermark(o.store);
      watermarkError = null;
      if (w && (watermark === null || w.mc_seqno > watermark)) {
        watermark = w.mc_seqno;
        o.metrics.watermark.set(watermark);
        finalize();
        release();
      }
    } catch (err) {
      watermarkError = (err as Error).message;
    }
    if (running) timer = setTimeout(() => void pollWatermark(), o.watermarkPollMs);
  };

  const checkTracer = async () => {
    try {
      const { groups } = await admin.describeGroups([`${o.topics.blocks.replace(/ton\.blocks$/, '')}${TRACER_GROUP}`]);
      tracerGroupActive = groups.some((g) => g.members.length > 0);
    } catch {
      tracerGroupActive = false;
    }
    if (running) tracerTimer = setTimeout(() => void checkTracer(), TRACER_CHECK_MS);
  };

  // Topics created a moment ago may not have a partition leader yet.
  const offsetsAt = async (topic: string, ms: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await admin.fetchTopicOffsetsByTimestamp(topic, ms);
      } catch (err) {
        if (attempt >= OFFSET_LOOKUP_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  return {
    /** Rejects when the consumer is gone for good (watchConsumer): the process should exit non-zero. */
    stopped: watch.stopped,
    async start(): Promise<void> {
      await admin.connect();
      await ensureTopics(admin, topicSpecs(o.topics, o.partitions));
      const from = Date.now() - o.replayMs;
      const seeks: { topic: string; partition: number; offset: string }[] = [];
      const replayed = [...kinds.keys(), o.topics.traces, o.topics.actions];
      for (const topic of replayed) for (const s of await offsetsAt(topic, from)) seeks.push({ topic, ...s });
      // Pending events are live only (nothing retains or replays them).
      for (const s of await offsetsAt(o.topics.pendingTraces, Date.now())) seeks.push({ topic: o.topics.pendingTraces, ...s });
      // The replay's seeks go with the first join of the group: `run` also returns when that join failed
      // and kafkajs restarts the consumer, and a seek before the group exists throws (ci49).
      let sought = false;
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        collector.assign(Object.entries(e.payload.memberAssignment).filter(([topic]) => kinds.has(topic)).flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition }))));
        if (sought) return;
        sought = true;
        for (const s of seeks) consumer.seek({ topic: s.topic, partition: s.partition, offset: s.offset });
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [...replayed, o.topics.pendingTraces], fromBeginning: false });
      await consumer.run({ partitionsConsumedConcurrently: 1, eachBatch });
      running = true;
      void pollWatermark();
      holdTimer = setInterval(release, HOLD_CHECK_MS);
      void checkTracer();
      o.logger.info('streamer reading', { group_id: groupId, from_ms: from, topics: [...replayed, o.topics.pendingTraces] });
    },
    async stop(): Promise<void> {
      running = false;
      clearTimeout(timer);
      clearInterval(holdTimer);
      clearTimeout(tracerTimer);
      await consumer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
    health() {
      const problems: string[] = [];
      if (!running) problems.push('not reading the topics');
      if (watermarkError) problems.push(`watermark unreadable: ${watermarkError}`);
      if (waitingForWatermark) problems.push(`paused: ${unfinalized.length} confirmed blocks wait for the watermark (STREAMER_MAX_UNFINALIZED_BLOCKS)`);
      const reading = watch.health();
      if (running && reading.status === 'error') problems.push(...reading.reasons);
      // Degraded, not down: the stream goes on, without some records.
      const now = Date.now();
      const warnings: string[] = running && reading.status === 'degraded' ? [...reading.reasons] : [];
      const stall = collector.stalled();
      if (stall && now - stall.since >= STALL_REPORTED_AFTER_MS) warnings.push(`waiting ${Math.round((now - stall.since) / 1000)} s for masterchain block ${stall.mcSeqno} while ${stall.newestWhole} is whole: ${stall.missing}`);
      for (const g of givenUp) if (now - g.at < GIVE_UP_REPORTED_MS) warnings.push(`gave up on masterchain block ${g.mcSeqno} at ${new Date(g.at).toISOString()}: ${g.missing}`);
      return { ok: problems.length === 0, problems, warnings, given_up_mc_blocks: givenUp.map((g) => g.mcSeqno), watermark, last_confirmed: lastConfirmed, unfinalized_blocks: unfinalized.length, waiting_for: collector.next, trace_links: links.size, held_blocks: held.length, tracer_join: join.size, tracer_running: tracerRunning() };
    },
  };
}

export type Source = ReturnType<typeof createSource>;
