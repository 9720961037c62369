/**
 * The fetcher service: metrics and health around openFetcher; `runService` runs it (main.ts). It
 * ends by itself after a finished backfill (exit 0) or when its checkpoint belongs to another chain
 * (exit 1); see README.md.
 */
import { createLease, type Lease, standByUntilHeld } from '@tonstream/lease';
import { createLeaseMetrics, leaseKey, type ServiceContext, type Stop } from '@tonstream/runtime';
import { CheckpointMismatchError } from './checkpoint.js';
import type { FetcherServiceConfig } from './config.js';
import { createFetcherMetrics } from './metrics.js';
import { openFetcher } from './wire.js';

export async function startFetcher(cfg: FetcherServiceConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const metrics = createFetcherMetrics(registry);
  const lease = cfg.lease === 'on' && cfg.fromSeqno === null ? await holdLease(cfg, ctx) : undefined;
  if (cfg.lease === 'on' && !lease) logger.info('backfill: runs without the lease (LEASE=on applies to the live fetcher)');
  ctx.health(() => ({ status: 'degraded', reasons: ['starting: waiting for the global config, liteservers and Kafka'] }));

  const opened = await openFetcher(cfg, { logger, metrics, signal: ctx.signal }).catch(async (err: unknown) => {
    await lease?.close();
    throw err;
  });
  ctx.health(() => opened.fetcher.health());
  void opened.fetcher.run().then(
    () => {
      if (opened.fetcher.status().phase === 'done') ctx.finish('backfill done');
    },
    (err: unknown) => ctx.fail(err instanceof CheckpointMismatchError ? `stopped: ${err.message}` : 'fetcher failed', err),
  );
  // The lease goes last: no block is published once a standby can take over.
  return async () => {
    await opened.close();
    await lease?.close();
  };
}

/** Two live fetchers would publish every block twice: one works, the others wait as standbys; each starts from the checkpoint once it holds the lease. */
async function holdLease(cfg: FetcherServiceConfig, ctx: ServiceContext): Promise<Lease> {
  const key = leaseKey(cfg.topicPrefix, 'fetcher');
  const lease = createLease({ redisUrl: cfg.redisUrl, key, ttlMs: cfg.leaseTtlMs, logger: ctx.logger, observer: createLeaseMetrics(ctx.registry, key) });
  try {
    await standByUntilHeld(lease, ctx);
    return lease;
  } catch (err) {
    await lease.close();
    throw err;
  }
}
