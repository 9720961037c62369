/** The emulator service: Redis, liteservers, Kafka and metrics wired around the processor and the consumer; `runService` runs it (main.ts). */
import { Executor } from '@ton/sandbox';
import { classifyTrace } from '@tonstream/actions';
import { createKafka, topicNames } from '@tonstream/bus';
import { createLiteState, createTraceEmulator, type TraceClassifier } from '@tonstream/emulation';
import { connectLitePool, createLiteReads, loadGlobalConfig } from '@tonstream/lite-client';
import { clickhouseOptions, createStopSteps, type ServiceContext, type Stop } from '@tonstream/runtime';
import { createStore, pendingKeys } from '@tonstream/store';
import { Redis } from 'ioredis';
import { createAdmission } from './admission.js';
import type { EmulatorConfig } from './config.js';
import { createEmulatorMetrics } from './metrics.js';
import { createProcessor } from './processor.js';
import { createPendingStream } from './pending-stream.js';
import { createEmulatorService, EMULATOR_GROUP_ID } from './service.js';

/** Per liteserver query, ton-lite-client's own default (a state or a config on a busy server). */
const LITE_QUERY_TIMEOUT_MS = 5_000;

export async function startEmulator(config: EmulatorConfig, ctx: ServiceContext): Promise<Stop> {
  const { logger, registry } = ctx;
  const steps = createStopSteps(logger);
  const metrics = createEmulatorMetrics(registry);

  // Commands fail at once while Redis is down (no offline queue): the processor retries them itself.
  const redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: (n) => Math.min(n * 100, 2_000) });
  redis.on('error', () => {});
  steps.add('redis', async () => void redis.disconnect());

  // The file may not exist yet when the local network starts beside us: it is waited for.
  const { liteservers } = await loadGlobalConfig(config.globalConfig, { onRetry: (_err, n) => n === 0 && logger.info('waiting for the global config', { path: config.globalConfig }) });
  const lite = createLiteReads(await connectLitePool(liteservers, { timeoutMs: LITE_QUERY_TIMEOUT_MS, observer: metrics.lite, onConnectionError: (server) => logger.debug('liteserver connection error', { server }) }));
  steps.add('liteserver', async () => lite.close());
  const executor = await Executor.create();
  const emulator = createTraceEmulator({ state: createLiteState({ lite }), executor, limits: { maxTransactions: config.maxTransactions, maxDepth: config.maxDepth } });
  // Interfaces come from the emulated states (Jetton wallets: get_wallet_data); see @tonstream/emulation.
  const classify: TraceClassifier = (trace, lookup) => classifyTrace(trace, lookup);

  const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-emulator', logger: logger.child({ module: 'kafka' }) });
  const pendingStream = createPendingStream(kafka, topicNames(config.topicPrefix), logger, () => metrics.streamErrors.inc(), config.kafkaPartitions);
  const keys = pendingKeys(config.redisPrefix);
  const processor = createProcessor({
    emulator,
    classify,
    redis,
    keys,
    admission: createAdmission({ rate: config.ratePerDestination, windowMs: config.rateWindowMs, dedupeMs: config.ttlMs }),
    ttlMs: config.ttlMs,
    metrics,
    logger,
    pendingStream,
  });
  const store = config.clickhouseUrl === 'none' ? undefined : createStore(clickhouseOptions(config));
  if (store) steps.add('store', () => store.close());
  const service = createEmulatorService({
    kafka,
    topics: topicNames(config.topicPrefix),
    partitions: config.kafkaPartitions,
    groupId: `${config.topicPrefix}${EMULATOR_GROUP_ID}`,
    sessionTimeoutMs: config.kafkaSessionTimeoutMs,
    processor,
    redis,
    keys,
    store,
    concurrency: config.concurrency,
    metrics,
    logger,
    pendingStream,
  });
  ctx.health(() => service.health());

  // A consumer gone for good ends the process non-zero (health says error meanwhile), for its supervisor
  // to restart it: a live emulator that emulates nothing would only look healthy.
  service.stopped.catch((err: unknown) => ctx.fail('consumer stopped', err));

  await pendingStream.start();
  steps.add('pending stream', () => pendingStream.stop());
  await service.start();
  steps.add('consumer', () => service.stop());
  return steps.stop;
}
