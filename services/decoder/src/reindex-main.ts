/**
 * `npm run reindex`: replays ton.blocks through a one-off decoder so the running writer stores every
 * block's records again (after a migration that needs re-derived records). Progress goes to the log;
 * exits 0 once the replay reached the end ton.blocks had when it started. Same environment as the
 * decoder (KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, DECODER_CONCURRENCY, DECODER_WORKERS, LOG_LEVEL).
 */
import { createKafka, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry, loadConfig } from '@tonstream/runtime';
import { DECODER_CONFIG } from './config.js';
import { createDecoderMetrics } from './metrics.js';
import { reindex } from './reindex.js';

const config = loadConfig(DECODER_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'reindex' } });
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-reindex', logger: logger.child({ module: 'kafka' }) });

let last = -1;
try {
  const result = await reindex({
    kafka,
    topics: topicNames(config.topicPrefix),
    logger,
    metrics: createDecoderMetrics(createRegistry('reindex')),
    groupPrefix: config.topicPrefix,
    concurrency: config.concurrency,
    workers: config.workers,
    onProgress(p) {
      if (p.replayed === last) return;
      last = p.replayed;
      logger.info('reindex progress', { ...p });
    },
  });
  logger.info('reindex done: the writer stores the replayed records as it consumes them', { ...result });
  process.exit(0);
} catch (err) {
  logger.error('reindex failed', { err });
  process.exit(1);
}
