import { hostPorts, int, LOG_LEVELS, oneOf, str, url, type LogLevel, type Spec } from '@tonstream/runtime';

/** The writer's configuration, from environment variables (README lists them). */
export type WriterConfig = {
  /** Kafka bootstrap brokers. Default 127.0.0.1:9092. */
  kafkaBrokers: string[];
  /** Prefix of every topic name (isolates deployments sharing a cluster). Default ''. */
  topicPrefix: string;
  /** ClickHouse HTTP endpoint. Default http://127.0.0.1:8123. */
  clickhouseUrl: string;
  /** Database holding the tables; created and migrated at start. Default tonstream. */
  clickhouseDatabase: string;
  /** Records per ClickHouse batch at most. Default 10,000. */
  batchRows: number;
  /** A batch is written at the latest this long after its first record. Default 200 ms. */
  flushMs: number;
  /** Address of /metrics and /healthcheck. Default 127.0.0.1:9103. */
  metricsHost: string;
  metricsPort: number;
  logLevel: LogLevel;
};

export const WRITER_CONFIG: Spec<WriterConfig> = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
  clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP endpoint', 'http://127.0.0.1:8123'),
  clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'ClickHouse database of the tables', 'tonstream'),
  batchRows: int('WRITER_BATCH_ROWS', 'records per ClickHouse batch at most', 10_000, { min: 1, max: 1_000_000 }),
  flushMs: int('WRITER_FLUSH_MS', 'longest wait before a partial batch is written', 200, { min: 1, max: 600_000 }),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9103, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
};
