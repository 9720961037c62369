import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CONSUMER_FETCH, type DecodedTopic, ensureTopics, readDecodedMessage, topicSpecs, type Topics } from '@tonstream/bus';
import type { Logger } from '@tonstream/runtime';
import { readWatermark, type Store } from '@tonstream/store';
import { blockEvents, createCollector, createTraceLinks, type BlockEvent, type Fanout, type McRecords } from '@tonstream/streaming';
import { joinTransactions } from '@tonstream/traces';
import type { EachBatchPayload, Kafka } from 'kafkajs';
import type { StreamerMetrics } from './metrics.js';

/** A trace's undelivered messages are followed this many masterchain blocks (~25 min of mainnet). */
const TRACE_LINK_MAX_AGE_MC_BLOCKS = 1000;
/** See CollectorOptions. */
const START_MARGIN_MC_BLOCKS = 3;
const SKIP_INCOMPLETE_AFTER_MC_BLOCKS = 8;
/** Rough retained size of one event's parts, for the resume window's byte bound. */
const TX_EVENT_BYTES = 2500;
const STATE_EVENT_BYTES = 400;
const OFFSET_LOOKUP_ATTEMPTS = 20;

export type SourceOptions = {
  kafka: Kafka;
  topics: Topics;
  store: Store;
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  watermarkPollMs: number;
  replayMs: number;
};

const sizeOf = (e: BlockEvent) => (e.type === 'transactions' ? e.txs.length * TX_EVENT_BYTES : STATE_EVENT_BYTES);

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
  const groupId = `${o.topics.blocks.replace(/ton\.blocks$/, '')}tonstream-streamer-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const consumer = o.kafka.consumer({ groupId, ...CONSUMER_FETCH, sessionTimeout: 30_000 });
  const admin = o.kafka.admin();
  const collector = createCollector({ startMarginMcBlocks: START_MARGIN_MC_BLOCKS, skipIncompleteAfterMcBlocks: SKIP_INCOMPLETE_AFTER_MC_BLOCKS });
  const links = createTraceLinks(TRACE_LINK_MAX_AGE_MC_BLOCKS);
  const unfinalized: { mc: number; events: BlockEvent[] }[] = [];
  let watermark: number | null = null;
  let lastConfirmed: number | null = null;
  let watermarkError: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  const finalize = () => {
    while (unfinalized.length > 0 && watermark !== null && unfinalized[0].mc <= watermark) {
      const { mc, events } = unfinalized.shift()!;
      o.fanout.emit('finalized', mc, events, sizeOf);
      o.metrics.events.inc({ stage: 'finalized' }, events.length);
      o.metrics.lastMcSeqno.set({ stage: 'finalized' }, mc);
    }
    o.metrics.unfinalizedBlocks.set(unfinalized.length);
  };

  const confirm = (block: McRecords) => {
    const started = performance.now();
    const transactions = joinTransactions(block.transactions, block.messages);
    const events = blockEvents(transactions, links.assign(block.mcSeqno, transactions), block.accountStates);
    o.fanout.emit('confirmed', block.mcSeqno, events, sizeOf);
    lastConfirmed = block.mcSeqno;
    unfinalized.push({ mc: block.mcSeqno, events });
    o.metrics.events.inc({ stage: 'confirmed' }, events.length);
    o.metrics.lastMcSeqno.set({ stage: 'confirmed' }, block.mcSeqno);
    o.metrics.blockDuration.observe((performance.now() - started) / 1000);
    finalize();
  };

  async function eachBatch({ batch, heartbeat, isRunning }: EachBatchPayload) {
    const kind = kinds.get(batch.topic);
    if (!kind) return;
    for (const message of batch.messages) {
      if (!isRunning()) return;
      const c = readDecodedMessage(kind, message, (reason) => {
        o.metrics.refused.inc();
        o.logger.warn('record refused', { topic: batch.topic, partition: batch.partition, offset: message.offset, reason });
      });
      if (c) collector.add(c);
    }
    for (let block = collector.take(); block; block = collector.take()) confirm(block);
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
      }
    } catch (err) {
      watermarkError = (err as Error).message;
    }
    if (running) timer = setTimeout(() => void pollWatermark(), o.watermarkPollMs);
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
    async start(): Promise<void> {
      await admin.connect();
      await ensureTopics(admin, topicSpecs(o.topics));
      const from = Date.now() - o.replayMs;
      const seeks = [];
      for (const topic of kinds.keys()) for (const s of await offsetsAt(topic, from)) seeks.push({ topic, ...s });
      await consumer.connect();
      await consumer.subscribe({ topics: [...kinds.keys()], fromBeginning: false });
      await consumer.run({ partitionsConsumedConcurrently: 1, eachBatch });
      for (const s of seeks) consumer.seek({ topic: s.topic, partition: s.partition, offset: s.offset });
      running = true;
      void pollWatermark();
      o.logger.info('streamer reading', { group_id: groupId, from_ms: from, topics: [...kinds.keys()] });
    },
    async stop(): Promise<void> {
      running = false;
      clearTimeout(timer);
      await consumer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
    health() {
      const problems: string[] = [];
      if (!running) problems.push('not reading the topics');
      if (watermarkError) problems.push(`watermark unreadable: ${watermarkError}`);
      return { ok: problems.length === 0, problems, watermark, last_confirmed: lastConfirmed, waiting_for: collector.next, trace_links: links.size };
    },
  };
}

export type Source = ReturnType<typeof createSource>;
