/** The decoder service: Kafka and metrics wired around `createDecoder`; `runService` runs it (main.ts). */
import { createKafka, topicNames } from '@tonstream/bus';
import type { ServiceContext, Stop } from '@tonstream/runtime';
import type { DecoderConfig } from './config.js';
import { createDecoder, DECODER_GROUP_ID } from './decoder.js';
import { createDecoderMetrics } from './metrics.js';

export async function startDecoder(config: DecoderConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-decoder', logger: logger.child({ module: 'kafka' }) });
  const decoder = createDecoder({
    kafka,
    topics: topicNames(config.topicPrefix),
    logger,
    metrics: createDecoderMetrics(registry),
    // Deployments sharing a cluster (one topic prefix each) must not share a consumer group.
    groupId: `${config.topicPrefix}${DECODER_GROUP_ID}`,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    concurrency: config.concurrency,
    partitions: config.kafkaPartitions,
    workers: config.workers,
    compression: config.compression,
  });
  ctx.health(() => decoder.health());

  // A consumer that stopped for good ends the process non-zero, so a supervisor restarts it instead of
  // leaving a process that looks alive while nothing is decoded.
  decoder.done.catch((err: unknown) => ctx.fail('decoder stopped', err));

  await decoder.start();
  return () => decoder.stop();
}
