/** The streamer service: Kafka, ClickHouse and metrics around the fan-out and its server; `runService` runs it (main.ts). */
import { createKafka, topicNames } from '@tonstream/bus';
import { clickhouseOptions, createStopSteps, type Logger, type ServiceContext, type Stop } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import { createFanout } from '@tonstream/streaming';
import { connectKeyVerifier } from './api-keys.js';
import type { StreamerConfig } from './config.js';
import { type ConnectionCounter, createConnectionCounter, createSharedConnectionCounter } from './connection-count.js';
import { createEmitQueue } from './emit-queue.js';
import { createExtrasLookup, storeEntryReader } from './extras-lookup.js';
import { createStreamerMetrics } from './metrics.js';
import { connectRedisSlots, slotsKey } from './redis-slots.js';
import { createStreamingServer } from './server.js';
import { createSource } from './source.js';

export async function startStreamer(config: StreamerConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  const metrics = createStreamerMetrics(registry);

  const store = createStore(clickhouseOptions(config));
  steps.add('clickhouse', () => store.close());
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-streamer', logger: logger.child({ module: 'kafka' }) });
  const fanout = createFanout({ retainMcBlocks: config.retainMcBlocks, retainMaxBytes: config.retainMaxBytes });
  const extras = createExtrasLookup({ read: storeEntryReader(store, () => source.health().watermark), ttlMs: config.extrasTtlMs, maxEntries: config.extrasCacheEntries, logger: logger.child({ module: 'extras' }) });
  const emitter = createEmitQueue({ fanout, lookup: extras, waitMs: config.extrasWaitMs });
  const source = createSource({ kafka, topics: topicNames(config.topicPrefix), partitions: config.kafkaPartitions, store, fanout, emitter, logger, metrics, watermarkPollMs: config.watermarkPollMs, replayMs: config.replayMs, tracerWaitMs: config.tracerWaitMs, maxUnfinalizedBlocks: config.maxUnfinalizedBlocks, giveUp: { afterMcBlocks: config.giveUpAfterMcBlocks, afterMs: config.giveUpAfterMs } });
  const keys = config.checkApiKeys ? connectKeyVerifier({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger: logger.child({ module: 'api-keys' }) }) : null;
  if (keys) steps.add('redis', () => keys.close());
  const counter = await connectionCounter(config, logger);
  steps.add('connection count', () => counter.close());
  const health = () => {
    const s = source.health();
    const m = process.memoryUsage();
    const count = counter.mode();
    const warnings = config.connectionCount === 'shared' && !count.shared ? [...s.warnings, `connection limits counted per process: ${count.reason}`] : s.warnings;
    return { ...s, warnings, connections_counted: count.shared ? 'shared' : 'process', fanout: fanout.status(), extras: { ...extras.status(), ...emitter.status() }, memory: { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external } };
  };
  const server = createStreamingServer({ fanout, logger, metrics, health, keys, counter, ...config });
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const port = (server.address() as { port: number }).port;
  steps.add('streaming server', () => new Promise<void>((resolve) => (server.closeStreams(), server.close(() => resolve()))));
  logger.info('streamer listening', { host: config.host, port });

  ctx.health(() => { const h = health(); return { status: !h.ok ? 'error' : h.warnings.length > 0 ? 'degraded' : 'ok', reasons: [...h.problems, ...h.warnings] }; });

  // A consumer gone for good ends the process non-zero (health says error meanwhile): its supervisor
  // restarts it, clients reconnect and resume, rather than a live process that streams nothing.
  source.stopped.catch((err: unknown) => ctx.fail('consumer stopped', err));

  await source.start();
  steps.add('source', () => source.stop());
  steps.add('emit queue', () => emitter.stop());
  return steps.stop;
}

async function connectionCounter(config: StreamerConfig, logger: Logger): Promise<ConnectionCounter> {
  if (config.connectionCount === 'process') return createConnectionCounter();
  const log = logger.child({ module: 'connection-count' });
  const slots = await connectRedisSlots({ redisUrl: config.redisUrl, keyOf: (key) => slotsKey(config.redisPrefix, config.topicPrefix, key), logger: log });
  return createSharedConnectionCounter({ slots, logger: log });
}
