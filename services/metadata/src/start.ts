/** The metadata worker service: ClickHouse and metrics wired around the worker; `runService` runs it (main.ts). */
import { clickhouseOptions, createStopSteps, type ServiceContext, type Stop } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import type { MetadataConfig } from './config.js';
import { createMetadataMetrics } from './metrics.js';
import { createMetadataWorker } from './worker.js';

export async function startMetadata(config: MetadataConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  const metrics = createMetadataMetrics(registry);

  const store = createStore(clickhouseOptions(config));
  steps.add('store', () => store.close());
  const worker = createMetadataWorker({ store, config, metrics, logger });
  ctx.health(() => worker.health());

  await worker.start();
  steps.add('worker', () => worker.stop());
  logger.info('metadata worker started', { database: config.clickhouseDatabase, ipfs_gateway: config.ipfsGateway, metrics_port: config.metricsPort });
  return steps.stop;
}
