/** The writer process: config, logger, metrics and shutdown wired around `createWriter`. */
import { createKafka, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry, createShutdown, loadConfig, startMetricsServer } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import { WRITER_CONFIG } from './config.js';
import { createWriterMetrics } from './metrics.js';
import { createWriter, WRITER_GROUP_ID } from './writer.js';

/** After a fatal store error, how long leaving the consumer group may take before exiting anyway. */
const FATAL_EXIT_GRACE_MS = 5_000;

const config = loadConfig(WRITER_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'writer' } });
const registry = createRegistry('writer');
const shutdown = createShutdown(logger);

const store = createStore({ url: config.clickhouseUrl, database: config.clickhouseDatabase });
shutdown.add('clickhouse client', () => store.close());
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-writer', logger: logger.child({ module: 'kafka' }) });
const writer = createWriter({
  kafka,
  topics: topicNames(config.topicPrefix),
  store,
  logger,
  metrics: createWriterMetrics(registry),
  // Deployments sharing a cluster (one topic prefix each) must not share a consumer group.
  groupId: `${config.topicPrefix}${WRITER_GROUP_ID}`,
  batchRows: config.batchRows,
  flushMs: config.flushMs,
});

const server = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health: () => writer.health() });
shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
logger.info('metrics listening', { host: config.metricsHost, port: config.metricsPort });

// A non-retriable store error ends the process non-zero: the supervisor restarts it and the
// uncommitted batches are consumed again (rows are idempotent, so that is safe).
writer.done.catch(async () => {
  const timer = setTimeout(() => process.exit(1), FATAL_EXIT_GRACE_MS);
  timer.unref();
  // Leaving the group lets the restarted writer take the partitions at once; nothing is committed.
  await writer.stop().catch(() => {});
  process.exit(1);
});

try {
  await writer.start();
} catch (err) {
  logger.error('writer failed to start', { err });
  process.exit(1);
}
shutdown.add('writer', () => writer.stop());
