/** The metadata worker process: config, logger, metrics and shutdown wired around the worker. */
import { createLogger, createRegistry, createShutdown, loadConfig, startMetricsServer } from '@tonstream/runtime';
import { createStore } from '@tonstream/store';
import { METADATA_CONFIG } from './config.js';
import { createMetadataMetrics } from './metrics.js';
import { createMetadataWorker } from './worker.js';

const config = loadConfig(METADATA_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'metadata' } });
const registry = createRegistry('metadata');
const shutdown = createShutdown(logger);
const metrics = createMetadataMetrics(registry);

const store = createStore({ url: config.clickhouseUrl, database: config.clickhouseDatabase });
shutdown.add('store', () => store.close());
const worker = createMetadataWorker({ store, config, metrics, logger });

const server = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health: () => worker.health() });
shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));

await worker.start();
shutdown.add('worker', () => worker.stop());
logger.info('metadata worker started', { database: config.clickhouseDatabase, ipfs_gateway: config.ipfsGateway, metrics_port: config.metricsPort });
