/** The writer service: Kafka, ClickHouse and metrics wired around `createWriter`; `runService` runs it (main.ts). */
import { createKafka, topicNames } from '@tonstream/bus';
import { clickhouseOptions, createStopSteps, hotTierOptions, type ServiceContext, type Stop } from '@tonstream/runtime';
import { connectHotTier, createStore } from '@tonstream/store';
import type { WriterConfig } from './config.js';
import { createWriterMetrics } from './metrics.js';
import { createWriter, WRITER_GROUP_ID } from './writer.js';

export async function startWriter(config: WriterConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  const store = createStore(clickhouseOptions(config));
  steps.add('clickhouse client', () => store.close());
  const hot = config.hotTier === 'on' ? await connectHotTier(config.redisUrl, hotTierOptions(config)) : undefined;
  if (hot) steps.add('hot tier redis', async () => hot.redis.disconnect());
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-writer', logger: logger.child({ module: 'kafka' }) });
  const writer = createWriter({
    kafka,
    topics: topicNames(config.topicPrefix),
    store,
    logger,
    metrics: createWriterMetrics(registry),
    // Deployments sharing a cluster (one topic prefix each) must not share a consumer group.
    groupId: `${config.topicPrefix}${WRITER_GROUP_ID}`,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    batchRows: config.batchRows,
    flushMs: config.flushMs,
    partitions: config.kafkaPartitions,
    hot,
    keepWatermarks: config.watermarks === 'on',
  });
  ctx.health(() => writer.health());

  // A non-retriable store error ends the process non-zero: the supervisor restarts it and the
  // uncommitted batches are consumed again (rows are idempotent, so that is safe). Stopping leaves
  // the group, so the restarted writer takes the partitions at once; nothing is committed.
  writer.done.catch((err: unknown) => ctx.fail('writer stopped', err));

  await writer.start();
  steps.add('writer', () => writer.stop());
  return steps.stop;
}
