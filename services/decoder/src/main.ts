/** The decoder process: config, logger, metrics and shutdown wired around `createDecoder`. */
import { createKafka, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry, createShutdown, loadConfig, startMetricsServer } from '@tonstream/runtime';
import { DECODER_CONFIG } from './config.js';
import { createDecoder, DECODER_GROUP_ID } from './decoder.js';
import { createDecoderMetrics } from './metrics.js';

const config = loadConfig(DECODER_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'decoder' } });
const registry = createRegistry('decoder');
const shutdown = createShutdown(logger);

const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-decoder', logger: logger.child({ module: 'kafka' }) });
const decoder = createDecoder({
  kafka,
  topics: topicNames(config.topicPrefix),
  logger,
  metrics: createDecoderMetrics(registry),
  // Deployments sharing a cluster (one topic prefix each) must not share a consumer group.
  groupId: `${config.topicPrefix}${DECODER_GROUP_ID}`,
  concurrency: config.concurrency,
  workers: config.workers,
  compression: config.compression,
});

const server = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health: () => decoder.health() });
shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
logger.info('metrics listening', { host: config.metricsHost, port: config.metricsPort });

// A consumer that stopped for good ends the process non-zero, so a supervisor restarts it instead of
// leaving a process that looks alive while nothing is decoded.
decoder.done.catch(async () => {
  const timer = setTimeout(() => process.exit(1), 5_000);
  timer.unref();
  await decoder.stop().catch(() => {});
  process.exit(1);
});

try {
  await decoder.start();
} catch (err) {
  logger.error('decoder failed to start', { err });
  process.exit(1);
}
shutdown.add('decoder', () => decoder.stop());
