import { CONSUMER_FETCH, createIdempotentProducer, type DecodedTopic, ensureTopics, groupTiming, readDecodedMessage, topicSpecs, type Topics } from '@tonstream/bus';
import type { HealthStatus, Logger } from '@tonstream/runtime';
import {
  type ActionRecord,
  type AssembledTrace,
  assembleMasterchainBlock,
  type AssemblerState,
  type ClassificationState,
  emptyState,
  joinTransactions,
  TRACE_BATCH_HEADER,
  type TraceBatch,
  type TraceRecord,
} from '@tonstream/traces';
import type { AccountStateRecord, TransactionRecord } from '@tonstream/records';
import type { EachBatchPayload, Kafka, Message } from 'kafkajs';
import { createCollector, type Collector, type GiveUpBound, type McGroup } from './collector.js';
import type { TracerMetrics } from './metrics.js';
import type { StateStore } from './state-store.js';

/** Consumer group of every tracer instance (one active member: assembly needs every shard's records). */
export const TRACER_GROUP_ID = 'tonstream-tracer';

/** What the classifier is handed: a finished trace's identity and bounds, and its transactions in full. */
export type TraceToClassify = {
  trace_id: string;
  external_hash: string | null;
  external_hash_norm: string | null;
  end_lt: string;
  end_utime: number;
  mc_seqno_end: number;
  transactions: TransactionRecord[];
};

/** Contract context by raw address (the classifier's interface lookup; its value type is @tonstream/actions' ContractInterfaces). */
export type ContractLookup<C> = (address: string) => C | undefined;

/** The call site of the action classifier (@tonstream/actions in main.ts). */
export type Classify<C = unknown> = (trace: TraceToClassify, contracts: ContractLookup<C>) => { actions: ActionRecord[]; state: Exclude<ClassificationState, 'unclassified' | 'failed'> };

/**
 * Accounts' contract context kept between masterchain blocks (a trace's wallets may have been
 * touched blocks before it completes), most recent last; the oldest are forgotten past the bound.
 */
export const CONTRACTS_KEPT = 200_000;

/** A block trailing later whole ones is reported once it has for this long (its partition may just be read later). */
const STALL_REPORTED_AFTER_MS = 2_000;
/** A block given up on stays in the health reasons this long: its traces are incomplete, an operator should see which. */
const GIVE_UP_REPORTED_MS = 15 * 60_000;
/** Given-up blocks remembered for the health reasons (newest last). */
const GIVE_UPS_KEPT = 10;

export type TracerDeps<C = unknown> = {
  kafka: Kafka;
  topics: Topics;
  stateStore: StateStore;
  classify: Classify<C>;
  /** What an account state tells the classifier (@tonstream/actions stateInterfaces). */
  contractOf: (state: AccountStateRecord) => C | undefined;
  logger: Logger;
  metrics: TracerMetrics;
  /** Default `tonstream-tracer` (main.ts prefixes it with the topic prefix). */
  groupId?: string;
  /** Partitions of the topics it creates (KAFKA_PARTITIONS). Default 4. */
  partitions?: number;
  /** How long the consumer may go silent before the group gives its partitions away (KAFKA_SESSION_TIMEOUT_MS). Default 30 s, kafkajs' own. */
  sessionTimeoutMs?: number;
  /** Masterchain blocks after its first one when a pending trace is published as incomplete. Default: the assembler's (1000). */
  incompleteAfterMcBlocks?: number;
  /** When a masterchain block that does not complete is traced with the records that arrived (collector.ts GiveUpBound). */
  giveUp: GiveUpBound;
  /** A history lane's tracer (`HistoryLane`); absent: the live tracer. */
  lane?: HistoryLane;
  /** A lane traced its last block (and a restart found it done): the process may end. */
  onLaneDone?: () => void;
};

/**
 * A history lane (issue 29): the tracer of a backfilled range, run on the lane's own topics. It starts
 * at `from` without state, publishes only the traces rooted in [from .. to], and traces on to `last`
 * (to + the lanes' overlap: the records of the next lane's first blocks, which the lane's fetcher
 * fetches too) so that a trace crossing the boundary is assembled whole by the lane it began in. After
 * `last`, what is still pending is published as incomplete. `continuedBefore`: a broken trace (its
 * root's sender unknown) rooted before this seqno continues a trace the lane below publishes whole: it
 * is not published (null for the lowest lane: nothing below it is traced).
 */
export type HistoryLane = { from: number; to: number; last: number; continuedBefore: number | null };

/** Whether a lane publishes this finished trace (see HistoryLane). */
export function laneOwns(lane: HistoryLane, trace: TraceRecord): boolean {
  if (trace.mc_seqno_start < lane.from || trace.mc_seqno_start > lane.to) return false;
  return !(trace.trace_info.trace_state === 'broken' && lane.continuedBefore !== null && trace.mc_seqno_start < lane.continuedBefore);
}

export type Tracer = {
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): HealthStatus;
  /** Rejects when the tracer cannot go on (consumer stopped for good, state not savable): exit non-zero. */
  readonly done: Promise<void>;
};

/**
 * The tracer: consumes the decoder's transactions, messages and block metas, assembles each whole
 * masterchain block into traces, classifies every completed trace and publishes traces and actions
 * (keyed by trace id, so one trace's versions stay in order) and the block's mark (what the writer
 * counts to serve a trace with its actions). Per block, in this order: publish
 * (acks from all replicas), save the assembler's delta and the block's seqno to Redis in one
 * transaction, commit the offsets of the messages that block needed. A crash before the save replays
 * the block from the saved state and publishes the same records again (the store keys them by id);
 * after it, the replayed records of done blocks are skipped.
 */
export function createTracer<C>(deps: TracerDeps<C>): Tracer {
  const { kafka, topics, stateStore, logger, metrics } = deps;
  const groupId = deps.groupId ?? TRACER_GROUP_ID;
  const kinds = new Map<string, DecodedTopic>([
    [topics.transactions, 'transactions'],
    [topics.messages, 'messages'],
    [topics.accountStates, 'accountStates'],
    [topics.blockMeta, 'meta'],
  ]);
  const contracts = new Map<string, C>();
  const learn = (states: readonly AccountStateRecord[]) => {
    for (const s of states) {
      const c = deps.contractOf(s);
      if (c === undefined) continue;
      contracts.delete(s.account);
      contracts.set(s.account, c);
    }
    for (const oldest of contracts.keys()) {
      if (contracts.size <= CONTRACTS_KEPT) break;
      contracts.delete(oldest);
    }
  };
  const lookup: ContractLookup<C> = (address) => contracts.get(address);
  const consumer = kafka.consumer({ groupId, ...groupTiming(deps.sessionTimeoutMs ?? 30_000), ...CONSUMER_FETCH, allowAutoTopicCreation: false });
  const producer = createIdempotentProducer(kafka, { allowAutoTopicCreation: false }, logger);
  const admin = kafka.admin();
  let state: AssemblerState = emptyState();
  /** The last batch marked (the saved seqno after a restart); null: this tracer began without state. */
  let lastMarked: number | null = null;
  let collector: Collector = createCollector({ lastDone: null, giveUp: deps.giveUp });
  const givenUp: { mcSeqno: number; at: number; missing: string }[] = [];
  let health: HealthStatus = { status: 'degraded', reasons: ['starting'] };
  let stopping = false;
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((_resolve, reject) => (fail = reject));
  done.catch(() => {});

  function classified(t: AssembledTrace): { trace: TraceRecord; actions: ActionRecord[] } {
    const r = t.record;
    if (r.is_incomplete) return { trace: r, actions: [] };
    try {
      const { actions, state: cs } = deps.classify({ ...r, transactions: t.transactions }, lookup);
      return { trace: { ...r, trace_info: { ...r.trace_info, classification_state: cs } }, actions };
    } catch (err) {
      metrics.classifyFailures.inc();
      logger.error('classifying a trace failed; published without actions', { trace_id: r.trace_id, err });
      return { trace: { ...r, trace_info: { ...r.trace_info, classification_state: 'failed' } }, actions: [] };
    }
  }

  async function processGroup(g: McGroup) {
    const started = performance.now();
    if (g.missing !== undefined) {
      logger.warn('gave up waiting for a masterchain block: traced with the records that arrived (traces through its missing transactions end incomplete)', { mc_seqno: g.mcSeqno, missing: g.missing, transactions: g.transactions.length });
    }
    learn(g.accountStates);
    const transactions = joinTransactions(g.transactions, g.messages);
    const lane = deps.lane;
    const result = assembleMasterchainBlock(state, g.mcSeqno, transactions, { incompleteAfterMcBlocks: deps.incompleteAfterMcBlocks, last: lane !== undefined && g.mcSeqno >= lane.last });
    const out = (lane ? result.finished.filter((t) => laneOwns(lane, t.record)) : result.finished).map(classified);
    // A lane's blocks past its range (the overlap) are another lane's to mark: the traces it finishes there
    // count toward its own last batch, so no two lanes (nor the live tracer) mark one seqno.
    const overlap = lane !== undefined && g.mcSeqno > lane.to;
    const headers = { [TRACE_BATCH_HEADER]: String(overlap ? lane.to : g.mcSeqno) };
    const traceMessages: Message[] = out.map(({ trace }) => ({ key: trace.trace_id, value: JSON.stringify(trace), headers }));
    const actionMessages: Message[] = out.filter((o) => o.actions.length > 0).map(({ trace, actions }) => ({ key: trace.trace_id, value: actions.map((a) => JSON.stringify(a)).join('\n'), headers }));
    // The batch's mark: the writer serves these traces once it stored all it announces (the traces
    // watermark). It covers every seqno since the last mark, so a block skipped leaves no gap.
    const mark: TraceBatch = { mc_seqno: g.mcSeqno, first_mc_seqno: lastMarked === null ? 0 : lastMarked + 1, traces: out.length, actions: out.reduce((n, o) => n + o.actions.length, 0) };
    const topicMessages = [
      ...(traceMessages.length > 0 ? [{ topic: topics.traces, messages: traceMessages }] : []),
      ...(actionMessages.length > 0 ? [{ topic: topics.actions, messages: actionMessages }] : []),
      ...(overlap ? [] : [{ topic: topics.traceBatches, messages: [{ key: String(g.mcSeqno), value: JSON.stringify(mark) }] }]),
    ];
    if (topicMessages.length > 0) await producer.sendBatch({ topicMessages, acks: -1 });
    if (!overlap) lastMarked = g.mcSeqno;
    await stateStore.save(g.mcSeqno, result);
    const commits = collector.done(g.mcSeqno);
    if (commits.length > 0) await consumer.commitOffsets(commits);
    if (g.missing !== undefined) {
      metrics.givenUp.inc();
      givenUp.push({ mcSeqno: g.mcSeqno, at: Date.now(), missing: g.missing });
      if (givenUp.length > GIVE_UPS_KEPT) givenUp.shift();
    }
    for (const { trace, actions } of out) {
      metrics.traces.inc({ state: trace.is_incomplete ? 'incomplete' : 'complete' });
      if (trace.is_incomplete) {
        metrics.incomplete.inc();
        logger.warn('trace did not complete within the bound; published as incomplete', { trace_id: trace.trace_id, mc_seqno_start: trace.mc_seqno_start, pending_messages: trace.trace_info.pending_messages });
      }
      metrics.actions.inc(actions.length);
    }
    metrics.transactions.inc(transactions.length);
    metrics.pendingTraces.set(state.traces.size);
    metrics.lastMcSeqno.set(g.mcSeqno);
    metrics.blockDuration.observe((performance.now() - started) / 1000);
    if (logger.isEnabled('debug')) logger.debug('masterchain block traced', { mc_seqno: g.mcSeqno, transactions: transactions.length, traces: out.length, pending: state.traces.size });
    if (lane && g.mcSeqno >= lane.last) laneDone();
  }

  let laneFinished = false;
  function laneDone() {
    if (laneFinished) return;
    laneFinished = true;
    logger.info('history lane traced', { from: deps.lane!.from, to: deps.lane!.to, last: deps.lane!.last });
    deps.onLaneDone?.();
  }

  async function eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    const kind = kinds.get(batch.topic);
    if (!kind) return;
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || stopping) return;
      const c = readDecodedMessage(kind, message, (reason) => logger.error('record refused; its block cannot be traced until it is published again', { topic: batch.topic, partition: batch.partition, offset: message.offset, reason }));
      // A message that is not a block's still moves its partition's offset.
      collector.add(c ?? { kind: 'other' }, { topic: batch.topic, partition: batch.partition, offset: message.offset });
      resolveOffset(message.offset);
    }
    metrics.waitingBlocks.set(collector.waiting);
    // Whole masterchain blocks, in seqno order, as far as the records allow.
    for (let g = collector.ready(Date.now()); g && !stopping && !laneFinished; g = collector.ready(Date.now())) {
      try {
        await processGroup(g);
      } catch (err) {
        health = { status: 'error', reasons: [`tracing masterchain block ${g.mcSeqno} failed: ${(err as Error).message}`] };
        logger.error('tracing a masterchain block failed: stopping so a supervisor restarts the tracer (it resumes from the saved state)', { mc_seqno: g.mcSeqno, err });
        fail(err);
        throw err;
      }
      await heartbeat();
    }
    metrics.waitingBlocks.set(collector.waiting);
  }

  return {
    done,
    async start() {
      const loaded = await stateStore.load();
      state = loaded.state;
      lastMarked = loaded.lastDone;
      // A lane begins at its first seqno, whatever arrives first.
      collector = createCollector({ lastDone: loaded.lastDone ?? (deps.lane ? deps.lane.from - 1 : null), giveUp: deps.giveUp });
      if (deps.lane && loaded.lastDone !== null && loaded.lastDone >= deps.lane.last) {
        health = { status: 'ok', reasons: [] };
        laneDone();
        return;
      }
      metrics.pendingTraces.set(state.traces.size);
      logger.info('tracer state loaded', { last_mc_seqno: loaded.lastDone, pending_traces: state.traces.size, undelivered_messages: state.edges.size });
      await admin.connect();
      const created = await ensureTopics(admin, topicSpecs(topics, deps.partitions));
      if (created.length > 0) logger.info('created topics', { topics: created });
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        health = { status: 'ok', reasons: [] };
        collector.assign(Object.entries(e.payload.memberAssignment).filter(([topic]) => kinds.has(topic)).flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition }))));
        logger.info('joined consumer group', { group_id: groupId, assignment: e.payload.memberAssignment });
      });
      consumer.on(consumer.events.CRASH, (e) => {
        const { error, restart } = e.payload;
        logger.error(restart ? 'consumer crashed; kafkajs restarts it' : 'consumer crashed for good', { err: error, restart });
        if (restart) return;
        health = { status: 'error', reasons: [`consumer stopped for good: ${error.message}`] };
        fail(error);
      });
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: [...kinds.keys()], fromBeginning: true });
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: 1, eachBatch });
      logger.info('tracer started', { group_id: groupId, topics: [...kinds.keys()], incomplete_after_mc_blocks: deps.incompleteAfterMcBlocks ?? null, give_up_after_mc_blocks: deps.giveUp.afterMcBlocks, give_up_after_ms: deps.giveUp.afterMs });
    },
    async stop() {
      stopping = true;
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
      logger.info('tracer stopped', { last_mc_seqno: collector.lastDone, pending_traces: state.traces.size });
    },
    health() {
      if (health.status !== 'ok') return health;
      const now = Date.now();
      const reasons: string[] = [];
      const stall = collector.stalled();
      if (stall && now - stall.since >= STALL_REPORTED_AFTER_MS) {
        reasons.push(`waiting ${Math.round((now - stall.since) / 1000)} s for masterchain block ${stall.mcSeqno} while ${stall.newestWhole} is whole: ${stall.missing}`);
      }
      for (const g of givenUp) if (now - g.at < GIVE_UP_REPORTED_MS) reasons.push(`gave up on masterchain block ${g.mcSeqno} at ${new Date(g.at).toISOString()}: ${g.missing}`);
      const details = { last_mc_seqno: collector.lastDone, pending_traces: state.traces.size, waiting_mc_blocks: collector.waiting, given_up_mc_blocks: givenUp.map((g) => g.mcSeqno) };
      return { status: reasons.length > 0 ? 'degraded' : 'ok', reasons, details };
    },
  };
}
