/**
 * The fetcher service: metrics and health around openFetcher; `runService` runs it (main.ts). It
 * ends by itself after a finished backfill (exit 0) or when its checkpoint belongs to another chain
 * (exit 1); see README.md.
 */
import type { ServiceContext, Stop } from '@tonstream/runtime';
import { CheckpointMismatchError } from './checkpoint.js';
import type { FetcherServiceConfig } from './config.js';
import { createFetcherMetrics } from './metrics.js';
import { openFetcher } from './wire.js';

export async function startFetcher(cfg: FetcherServiceConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const metrics = createFetcherMetrics(registry);
  ctx.health(() => ({ status: 'degraded', reasons: ['starting: waiting for the global config, liteservers and Kafka'] }));

  const opened = await openFetcher(cfg, { logger, metrics, signal: ctx.signal });
  ctx.health(() => opened.fetcher.health());
  void opened.fetcher.run().then(
    () => {
      if (opened.fetcher.status().phase === 'done') ctx.finish('backfill done');
    },
    (err: unknown) => ctx.fail(err instanceof CheckpointMismatchError ? `stopped: ${err.message}` : 'fetcher failed', err),
  );
  return () => opened.close();
}
