/** The API service: ClickHouse, Redis, liteservers and Kafka wired around the HTTP app; `runService` runs it (main.ts). */
import type { Server } from 'node:http';
import { createKafka, topicNames } from '@tonstream/bus';
import { clickhouseOptions, createStopSteps, hotTierOptions, type ServiceContext, type Stop } from '@tonstream/runtime';
import { connectHotTier, createStore, hotGate, migrate } from '@tonstream/store';
import { createApp } from './app.js';
import { createApiServer } from './http/http-server.js';
import type { ApiConfig } from './config.js';
import { connectLiteserver } from './chain/liteserver.js';
import { connectPendingRedis } from './pending-redis.js';
import { createPendingPublisher } from './pending-publish.js';
import { createRateLimit } from './limits/rate-limit.js';
import { createStreamingProxy } from './streaming-proxy.js';
import { connectLimitsRedis } from './limits/redis-connection.js';
import { connectWatermarkFloor, watermarkFloorKey } from './watermark-floor.js';

// The API serves /metrics and /healthcheck itself (app.ts), on its own port.
export async function startApi(config: ApiConfig, { logger, registry }: ServiceContext): Promise<Stop> {
  const steps = createStopSteps(logger);
  const store = createStore(clickhouseOptions(config));
  // The API can start before the writer: make sure the tables exist so queries answer, not fail.
  await migrate(store).catch((err: unknown) => logger.warn('schema check failed; serving anyway', { err }));
  const limitsRedis = config.rateLimit === 'on' ? connectLimitsRedis(config.redisUrl, logger) : undefined;
  const rateLimit = limitsRedis && createRateLimit({ redis: limitsRedis.redis, prefix: config.redisPrefix, anonymousRps: config.anonymousRps, registry, logger });
  const chain = config.globalConfig === 'none' ? undefined : connectLiteserver(config.globalConfig, logger, registry);
  const publisher =
    chain &&
    createPendingPublisher({
      kafka: createKafka({ brokers: config.kafkaBrokers, clientId: 'tonstream-api', logger: logger.child({ module: 'kafka' }) }),
      topics: topicNames(config.topicPrefix),
      registry,
      logger,
    });
  const lite = chain && publisher ? publisher.wrap(chain) : chain;
  const pending = connectPendingRedis(config.redisUrl, config.pendingRedisPrefix);
  steps.add('pending redis', async () => pending.redis.disconnect());
  const hot = config.hotTier === 'on' ? await connectHotTier(config.redisUrl, hotTierOptions(config)) : undefined;
  if (hot) steps.add('hot tier redis', async () => hot.redis.disconnect());
  const hotReads = hot && hotGate(hot, store, (problem) => (problem === null ? logger.info('hot tier in use', { prefix: hot.prefix }) : logger.warn('hot tier not used, ClickHouse answers', { prefix: hot.prefix, reason: problem })));
  // One server answers every read the same: only replicas, whose watermark tables trail one another, need a shared floor.
  const watermarkFloor = config.clickhouseCluster ? connectWatermarkFloor({ redisUrl: config.redisUrl, key: watermarkFloorKey(config.redisPrefix, config.clickhouseCluster, config.clickhouseDatabase), logger }) : undefined;
  if (watermarkFloor) steps.add('watermark floor redis', () => watermarkFloor.close());
  const streaming = config.streamingUrl === 'none' ? undefined : createStreamingProxy(new URL(config.streamingUrl), config.trustProxy, logger);
  const app = createApp({ store, registry, logger, testnet: config.testnet, rateLimit, lite, pending, hot: hotReads, healthNotes: publisher ? () => publisher.healthNotes() : undefined, defaults: { limit: config.defaultLimit }, streaming, checkResponses: config.checkResponses, watermarkFloor });
  if (config.trustProxy > 0) app.set('trust proxy', config.trustProxy); // the client IP of per-IP limits
  const server: Server = await new Promise((resolve, reject) => {
    const s = createApiServer(app);
    if (streaming) s.on('upgrade', streaming.upgrade);
    s.once('error', reject);
    s.listen(config.port, config.host, () => resolve(s));
  });
  steps.add('store', () => store.close());
  if (lite) steps.add('liteservers', async () => lite.close());
  if (publisher) steps.add('pending externals producer', () => publisher.close());
  if (limitsRedis) steps.add('rate limits redis', () => limitsRedis.close());
  steps.add('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  logger.info('api listening', { address: `http://${config.host}:${config.port}`, database: config.clickhouseDatabase, rate_limit: config.rateLimit });
  return steps.stop;
}
