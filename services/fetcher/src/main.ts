/**
 * The fetcher process: config, logging, metrics and shutdown around openFetcher; see README.md.
 * Exit codes: 0 after a signal or a finished backfill, 1 when it cannot start or its checkpoint
 * belongs to another chain, 2 on bad config. Argument: `--reset` (ignore the stored checkpoint).
 */
import { ConfigError, createLogger, createRegistry, createShutdown, type HealthStatus, startMetricsServer } from '@tonstream/runtime';
import { CheckpointMismatchError } from './checkpoint.js';
import { type FetcherServiceConfig, loadFetcherConfig } from './config.js';
import { createFetcherMetrics } from './metrics.js';
import { openFetcher } from './wire.js';

async function main(): Promise<void> {
  let cfg: FetcherServiceConfig;
  try {
    cfg = loadFetcherConfig(process.env, process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(2);
  }
  const logger = createLogger({ level: cfg.logLevel, bindings: { module: 'fetcher' } });
  const shutdown = createShutdown(logger);
  const registry = createRegistry('fetcher');
  const metrics = createFetcherMetrics(registry);

  let health = (): HealthStatus => ({ status: 'degraded', reasons: ['starting: waiting for the global config, liteservers and Kafka'] });
  const server = await startMetricsServer({ registry, port: cfg.metricsPort, host: cfg.metricsHost, health: () => health() });
  shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));

  let opened;
  try {
    opened = await openFetcher(cfg, { logger, metrics, signal: shutdown.signal });
  } catch (err) {
    if (shutdown.signal.aborted) return;
    logger.error('cannot start', { err });
    process.exit(1);
  }
  shutdown.add('fetcher', () => opened.close());
  health = () => opened.fetcher.health();
  try {
    await opened.fetcher.run();
  } catch (err) {
    if (err instanceof CheckpointMismatchError) logger.error(`stopped: ${err.message}`);
    else logger.error('fetcher failed', { err });
    await opened.close().catch(() => {});
    process.exit(1);
  }
  if (opened.fetcher.status().phase === 'done') await shutdown.trigger('backfill done');
}

await main();
