/** The tracer process: config, logger, metrics, Redis and shutdown wired around `createTracer`. */
import { classifyTrace, type ContractInterfaces, contractInterfacesOf } from '@tonstream/actions';
import { createKafka, topicNames } from '@tonstream/bus';
import { createLogger, createRegistry, createShutdown, loadConfig, startMetricsServer } from '@tonstream/runtime';
import { Redis } from 'ioredis';
import { TRACER_CONFIG } from './config.js';
import { createTracerMetrics } from './metrics.js';
import { watchRedis } from './redis-health.js';
import { createStateStore } from './state-store.js';
import { createTracer, TRACER_GROUP_ID, type Classify } from './tracer.js';

const FATAL_EXIT_GRACE_MS = 5_000;

const config = loadConfig(TRACER_CONFIG);
const logger = createLogger({ level: config.logLevel, bindings: { module: 'tracer' } });
const registry = createRegistry('tracer');
const shutdown = createShutdown(logger);

// The state must be durable before offsets are committed: a command that fails is an error, never a silent retry later.
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true });
shutdown.add('redis', async () => void (await redis.quit()));
const metrics = createTracerMetrics(registry);
const redisWatch = watchRedis(redis, (up) => metrics.redisUp.set(up ? 1 : 0));
shutdown.add('redis watch', async () => redisWatch.stop());
const kafka = createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-tracer', logger: logger.child({ module: 'kafka' }) });
// Contract context (a Jetton wallet's master and owner, an NFT item's collection) from the states of
// the accounts the pipeline saw (contractInterfacesOf); beyond those, what the trace itself proves.
const classify: Classify<ContractInterfaces> = (trace, contracts) => {
  const { actions, state } = classifyTrace(trace, contracts);
  return { actions: actions.map((a) => ({ ...a, trace_id: a.trace_id ?? trace.trace_id })), state };
};
const tracer = createTracer({
  kafka,
  topics: topicNames(config.topicPrefix),
  stateStore: createStateStore(redis, config.topicPrefix),
  classify,
  contractOf: contractInterfacesOf,
  logger,
  metrics,
  groupId: `${config.topicPrefix}${TRACER_GROUP_ID}`,
  incompleteAfterMcBlocks: config.incompleteAfterMcBlocks,
  giveUp: { afterMcBlocks: config.giveUpAfterMcBlocks, afterMs: config.giveUpAfterMs },
});
const health = () => {
  const h = tracer.health();
  const redisProblem = redisWatch.problem();
  return redisProblem === null ? h : { ...h, status: 'error' as const, reasons: [redisProblem, ...h.reasons] };
};

const server = await startMetricsServer({ registry, port: config.metricsPort, host: config.metricsHost, health });
shutdown.add('metrics server', () => new Promise<void>((resolve) => server.close(() => resolve())));
logger.info('metrics listening', { host: config.metricsHost, port: config.metricsPort });

tracer.done.catch(async () => {
  const timer = setTimeout(() => process.exit(1), FATAL_EXIT_GRACE_MS);
  timer.unref();
  await tracer.stop().catch(() => {});
  process.exit(1);
});

try {
  await tracer.start();
} catch (err) {
  logger.error('tracer failed to start', { err });
  process.exit(1);
}
shutdown.add('tracer', () => tracer.stop());
