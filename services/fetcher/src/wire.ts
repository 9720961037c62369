/** Builds a running fetcher from the service config: liteservers, Kafka, the fetcher itself. */
import { createKafka, topicNames } from '@tonstream/bus';
import { loadGlobalConfig } from '@tonstream/lite-client';
import type { Logger } from '@tonstream/runtime';
import { isStateGoneAnswer } from './block-loader.js';
import type { FetcherServiceConfig } from './config.js';
import { createFetcher, type Fetcher } from './fetcher.js';
import { openKafkaBus } from './kafka-bus.js';
import { connectLiteservers } from './lite-api.js';
import type { FetcherMetrics } from './metrics.js';

export const CLIENT_ID = 'tonstream-fetcher';

export type OpenedFetcher = { fetcher: Fetcher; /** Stops the fetcher, then closes Kafka and the liteserver connections. */ close(): Promise<void> };

/** `signal` aborts the waits of start-up (global config, first connection). */
export async function openFetcher(cfg: FetcherServiceConfig, { logger, metrics, signal }: { logger: Logger; metrics?: FetcherMetrics; signal?: AbortSignal }): Promise<OpenedFetcher> {
  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const globalConfig = await loadGlobalConfig(cfg.globalConfig, {
    signal: controller.signal,
    onRetry: (err, attempt) => {
      if (attempt % 20 === 0) logger.warn('waiting for the global config', { source: cfg.globalConfig, attempt, err: err.message });
    },
  });
  const addresses = globalConfig.liteservers;
  logger.info('liteservers', { source: cfg.globalConfig, liteservers: addresses.map((a) => `${a.host}:${a.port}`), localnet: globalConfig.localnet });
  const lite = await connectLiteservers(addresses, {
    timeoutMs: cfg.queryTimeoutMs,
    attempts: cfg.queryAttempts,
    concurrency: cfg.queryConcurrency,
    observer: metrics,
    isGone: isStateGoneAnswer,
    signal: controller.signal,
    onConnectionError: (server) => logger.warn('liteserver connection failed; ton-lite-client reconnects in 30 s', { liteserver: server }),
  });
  const kafka = createKafka({ brokers: cfg.kafkaBrokers, clientId: CLIENT_ID, logger: logger.child({ module: 'kafka' }) });
  let bus;
  try {
    bus = await openKafkaBus({ kafka, topics: topicNames(cfg.topicPrefix), clientId: CLIENT_ID, partitions: cfg.kafkaPartitions });
  } catch (err) {
    lite.pool.close();
    throw err;
  }
  const fetcher = createFetcher({
    lite,
    bus,
    logger,
    metrics,
    config: {
      startSeqno: cfg.startSeqno,
      reset: cfg.reset,
      localnet: globalConfig.localnet,
      backfill: cfg.fromSeqno !== null ? { from: cfg.fromSeqno, to: cfg.toSeqno ?? undefined } : undefined,
      concurrency: cfg.concurrency,
      pollIntervalMs: cfg.pollIntervalMs,
      progressIntervalMs: cfg.progressIntervalMs,
      lagDegradedBlocks: cfg.lagDegradedBlocks,
      lagDegradedSeconds: cfg.lagDegradedSeconds,
    },
  });
  let closing: Promise<void> | undefined;
  return {
    fetcher,
    close: () =>
      (closing ??= (async () => {
        controller.abort();
        await fetcher.stop();
        await bus.close().catch((err: unknown) => logger.warn('closing the Kafka producer failed', { err }));
        lite.pool.close();
      })()),
  };
}
