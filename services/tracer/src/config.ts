import { hostPorts, int, LOG_LEVELS, oneOf, str, url, type LogLevel, type Spec } from '@tonstream/runtime';

/** The tracer's configuration, from environment variables (README lists them). */
export type TracerConfig = {
  /** Kafka bootstrap brokers. Default 127.0.0.1:9092. */
  kafkaBrokers: string[];
  /** Prefix of every topic name; also prefixes the Redis keys. Default ''. */
  topicPrefix: string;
  /** Redis holding the incomplete traces. Default redis://127.0.0.1:6379. */
  redisUrl: string;
  /** A trace still pending this many masterchain blocks after its first is published as incomplete. Default 1000. */
  incompleteAfterMcBlocks: number;
  /**
   * A masterchain block that does not complete (records dead-lettered or refused) is traced with the
   * records that arrived once a block this many seqnos later is whole and every partition has moved
   * past it. Default 100 (a few minutes of mainnet; about that many blocks of records wait in memory).
   */
  giveUpAfterMcBlocks: number;
  /** ...or, when a partition stays silent, once it has waited this long with later blocks whole. Default 600000 (10 min). */
  giveUpAfterMs: number;
  /** Address of /metrics and /healthcheck. Default 127.0.0.1:9105. */
  metricsHost: string;
  metricsPort: number;
  logLevel: LogLevel;
};

export const TRACER_CONFIG: Spec<TracerConfig> = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name and Redis key', ''),
  redisUrl: url('REDIS_URL', 'Redis holding the incomplete traces', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  incompleteAfterMcBlocks: int('TRACER_INCOMPLETE_AFTER_MC_BLOCKS', 'masterchain blocks a trace may stay pending before it is published as incomplete', 1000, { min: 1, max: 10_000_000 }),
  giveUpAfterMcBlocks: int('TRACER_GIVE_UP_AFTER_MC_BLOCKS', 'masterchain blocks a later whole block may be ahead of an incomplete one before that one is traced with the records that arrived', 100, { min: 1, max: 100_000 }),
  giveUpAfterMs: int('TRACER_GIVE_UP_AFTER_MS', 'how long an incomplete masterchain block is waited for when a partition stays silent', 600_000, { min: 1_000, max: 7 * 86_400_000 }),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9105, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
};
