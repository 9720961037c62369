/** The streamer process: config, logger, metrics, Kafka, ClickHouse and shutdown around the fan-out and its server. */
import { createKafka, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry, createShutdown, loadConfig, startMetricsServer } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import { createFanout } from '@tonstream/streaming';
import { connectKeyVerifier } from './api-keys.js';
import { STREAMER_CONFIG } from './config.js';
import { createEmitQueue } from './emit-queue.js';
import { createExtrasLookup, storeEntryReader } from './extras-lookup.js';
import { createStreamerMetrics } from './metrics.js';
import { createStreamingServer } from './server.js';
import { createSource } from './source.js';

const config = loadConfig(STREAMER_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'streamer' } });
const registry = createRegistry('streamer');
const shutdown = createShutdown(logger);
const metrics = createStreamerMetrics(registry);

const store = createStore({ url: config.clickhouseUrl, database: config.clickhouseDatabase });
shutdown.add('clickhouse', () => store.close());
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-streamer', logger: logger.child({ module: 'kafka' }) });
const fanout = createFanout({ retainMcBlocks: config.retainMcBlocks, retainMaxBytes: config.retainMaxBytes });
const extras = createExtrasLookup({ read: storeEntryReader(store, () => source.health().watermark), ttlMs: config.extrasTtlMs, maxEntries: config.extrasCacheEntries, logger: logger.child({ module: 'extras' }) });
const emitter = createEmitQueue({ fanout, lookup: extras, waitMs: config.extrasWaitMs });
const source = createSource({ kafka, topics: topicNames(config.topicPrefix), store, fanout, emitter, logger, metrics, watermarkPollMs: config.watermarkPollMs, replayMs: config.replayMs, tracerWaitMs: config.tracerWaitMs, maxUnfinalizedBlocks: config.maxUnfinalizedBlocks, giveUp: { afterMcBlocks: config.giveUpAfterMcBlocks, afterMs: config.giveUpAfterMs } });
const health = () => {
  const s = source.health();
  const m = process.memoryUsage();
  return { ...s, fanout: fanout.status(), extras: { ...extras.status(), ...emitter.status() }, memory: { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external } };
};

const keys = config.checkApiKeys ? connectKeyVerifier({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger: logger.child({ module: 'api-keys' }) }) : null;
if (keys) shutdown.add('redis', () => keys.close());
const server = createStreamingServer({ fanout, logger, metrics, health, keys, ...config });
await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
const port = (server.address() as { port: number }).port;
shutdown.add('streaming server', () => new Promise<void>((resolve) => (server.closeStreams(), server.close(() => resolve()))));
logger.info('streamer listening', { host: config.host, port });

const metricsServer = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health: () => { const h = health(); return { status: !h.ok ? 'error' : h.warnings.length > 0 ? 'degraded' : 'ok', reasons: [...h.problems, ...h.warnings] }; } });
shutdown.add('metrics server', () => new Promise<void>((resolve) => metricsServer.close(() => resolve())));

// A consumer gone for good ends the process non-zero (health says error meanwhile): its supervisor
// restarts it, clients reconnect and resume, rather than a live process that streams nothing.
source.stopped.catch(() => void shutdown.trigger('consumer stopped', 1));

try {
  await source.start();
} catch (err) {
  logger.error('streamer failed to start', { err });
  process.exit(1);
}
shutdown.add('source', () => source.stop());
shutdown.add('emit queue', () => emitter.stop());
