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
  ctx.health(() => ({ status: 'degraded', reasons: ['starting: waiting for the global config, liteservers and Kafka'] }));

  // Connected before the lease is taken: a standby is ready to publish, and the CPU a start takes
  // (a loaded machine stretched it past a short TTL) is spent before there is a lease to renew.
  const opened = await openFetcher(cfg, { logger, metrics, signal: ctx.signal });
  const leased = cfg.lease === 'on' && cfg.fromSeqno === null;
  if (cfg.lease === 'on' && !leased) logger.info('backfill: runs without the lease (LEASE=on applies to the live fetcher)');
  const lease = leased
    ? await holdLease(cfg, ctx).catch(async (err: unknown) => {
        await opened.close();
        throw err;
      })
    : undefined;
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

/** Two live fetchers would publish every block twice: one works, the others wait as standbys; `run` reads the checkpoint once this one holds the lease. */
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
