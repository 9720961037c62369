/** The tracer service: Kafka, Redis and metrics wired around `createTracer`; `runService` runs it (main.ts). */
import { classifyTrace, type ContractInterfaces, stateInterfaces } from '@tonstream/actions';
import { createKafka, topicNames } from '@tonstream/bus';
import { createLease, standByUntilHeld } from '@tonstream/lease';
import { createLeaseMetrics, createStopSteps, leaseKey, type ServiceContext, type Stop } from '@tonstream/runtime';
import { Redis } from 'ioredis';
import type { TracerConfig } from './config.js';
import { createTracerMetrics } from './metrics.js';
import { watchRedis } from './redis-health.js';
import { createStateStore } from './state-store.js';
import { createTracer, TRACER_GROUP_ID, type Classify } from './tracer.js';

export async function startTracer(config: TracerConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  if (config.lease === 'on') {
    // Assembly needs every partition: one tracer works, the others wait. The state is loaded below,
    // once the lease is ours, so a standby that takes over starts from the holder's last save.
    const key = leaseKey(config.topicPrefix, 'tracer');
    const lease = createLease({ redisUrl: config.redisUrl, key, ttlMs: config.leaseTtlMs, logger, observer: createLeaseMetrics(registry, key) });
    steps.add('lease', () => lease.close());
    await standByUntilHeld(lease, ctx).catch(async (err: unknown) => {
      await lease.close();
      throw err;
    });
  }
  // The state must be durable before offsets are committed: a command that fails is an error, never a silent retry later.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true });
  steps.add('redis', async () => void (await redis.quit()));
  const metrics = createTracerMetrics(registry);
  const redisWatch = watchRedis(redis, (up) => metrics.redisUp.set(up ? 1 : 0));
  steps.add('redis watch', async () => redisWatch.stop());
  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-tracer', logger: logger.child({ module: 'kafka' }) });
  // Contract context (a Jetton wallet's master and owner, an NFT item's collection) from the states of
  // the accounts the pipeline saw (stateInterfaces); beyond those, what the trace itself proves.
  const classify: Classify<ContractInterfaces> = (trace, contracts) => {
    const { actions, state } = classifyTrace(trace, contracts);
    return { actions: actions.map((a) => ({ ...a, trace_id: a.trace_id ?? trace.trace_id })), state };
  };
  const lane = config.lane && { ...config.lane, last: config.lane.to + config.laneOverlap, continuedBefore: config.lane.from > 1 ? config.lane.from + config.laneOverlap : null };
  const tracer = createTracer({
    kafka,
    topics: topicNames(config.topicPrefix),
    stateStore: createStateStore(redis, config.topicPrefix),
    classify,
    contractOf: stateInterfaces,
    logger,
    metrics,
    groupId: `${config.topicPrefix}${TRACER_GROUP_ID}`,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    partitions: config.kafkaPartitions,
    incompleteAfterMcBlocks: config.incompleteAfterMcBlocks,
    giveUp: { afterMcBlocks: config.giveUpAfterMcBlocks, afterMs: config.giveUpAfterMs },
    ...(lane ? { lane, onLaneDone: () => ctx.finish(`history lane ${lane.from}..${lane.to} traced through ${lane.last}`) } : {}),
  });
  ctx.health(() => {
    const h = tracer.health();
    const redisProblem = redisWatch.problem();
    return redisProblem === null ? h : { ...h, status: 'error' as const, reasons: [redisProblem, ...h.reasons] };
  });

  tracer.done.catch((err: unknown) => ctx.fail('tracer stopped', err));

  await tracer.start();
  steps.add('tracer', () => tracer.stop());
  return steps.stop;
}
