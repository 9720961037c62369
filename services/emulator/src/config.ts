import { hostPorts, int, LOG_LEVELS, oneOf, str, url, type LogLevel, type Spec } from '@tonstream/runtime';

/** The emulator's configuration, from environment variables (README lists them). */
export type EmulatorConfig = {
  /** Kafka bootstrap brokers. @default 127.0.0.1:9092 */
  kafkaBrokers: string[];
  /** Prefix of every topic name and of the consumer group. @default '' */
  topicPrefix: string;
  /** Redis holding pending traces. @default redis://127.0.0.1:6379 */
  redisUrl: string;
  /** Prefix of the pending keys; the API reads with the same one. @default tonstream: */
  redisPrefix: string;
  /** TON global config (file path) of the liteservers the state comes from. @default $FETCHER_GLOBAL_CONFIG, else .local/localnet/global.config.json */
  globalConfig: string;
  /** A pending trace is served this long after emulation unless the confirmed one replaces it first. @default 60000 */
  ttlMs: number;
  /** toncenter's limits: 256 transactions, depth 32. */
  maxTransactions: number;
  maxDepth: number;
  /** Admission: at most this many emulations per destination per window (toncenter: 3 per 10 s). */
  ratePerDestination: number;
  rateWindowMs: number;
  /** Externals emulated at once (liteserver round trips overlap; the executor itself is one thread). @default 4 */
  concurrency: number;
  /** The index, where confirmed traces replace pending ones (`none`: pending traces leave by TTL only). */
  clickhouseUrl: string;
  clickhouseDatabase: string;
  metricsHost: string;
  /** @default 9106 */
  metricsPort: number;
  logLevel: LogLevel;
};

export const EMULATOR_CONFIG: Spec<EmulatorConfig> = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
  redisUrl: url('REDIS_URL', 'Redis holding pending traces', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  redisPrefix: str('PENDING_REDIS_PREFIX', 'prefix of the pending trace keys in Redis', 'tonstream:'),
  globalConfig: str('EMULATOR_GLOBAL_CONFIG', 'TON global config file of the liteservers', process.env.FETCHER_GLOBAL_CONFIG ?? '.local/localnet/global.config.json'),
  ttlMs: int('EMULATOR_TTL_MS', 'how long a pending trace is served', 60_000, { min: 1_000, max: 86_400_000 }),
  maxTransactions: int('EMULATOR_MAX_TRANSACTIONS', 'transactions emulated per trace at most', 256, { min: 1, max: 10_000 }),
  maxDepth: int('EMULATOR_MAX_DEPTH', 'depth of a trace emulated at most', 32, { min: 0, max: 1_000 }),
  ratePerDestination: int('EMULATOR_RATE_PER_DESTINATION', 'emulations per destination per window', 3, { min: 1, max: 1_000_000 }),
  rateWindowMs: int('EMULATOR_RATE_WINDOW_MS', 'window of the per-destination rate', 10_000, { min: 1, max: 3_600_000 }),
  clickhouseUrl: str('CLICKHOUSE_URL', 'ClickHouse HTTP URL of the index (none: confirmed traces are not looked up)', 'http://127.0.0.1:8123'),
  clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'database holding the index', 'tonstream'),
  concurrency: int('EMULATOR_CONCURRENCY', 'externals emulated at once', 4, { min: 1, max: 64 }),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9106, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
};
