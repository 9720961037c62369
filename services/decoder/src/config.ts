import { hostPorts, int, LOG_LEVELS, oneOf, str, type Spec } from '@tonstream/runtime';
import type { LogLevel } from '@tonstream/runtime';

/** The decoder's configuration, from environment variables (README lists them). */
export type DecoderConfig = {
  /** Kafka bootstrap brokers. Default 127.0.0.1:9092. */
  kafkaBrokers: string[];
  /** Prefix of every topic name (isolates deployments sharing a cluster). Default ''. */
  topicPrefix: string;
  /** Address of /metrics and /healthcheck. Default 127.0.0.1:9102. */
  metricsHost: string;
  metricsPort: number;
  logLevel: LogLevel;
  /** Raw block partitions decoded at the same time. Default 2 (one per core leaves room for Kafka). */
  concurrency: number;
  /** Worker threads decoding blocks (0: on the main thread). Default 1: Kafka I/O and decoding overlap. */
  workers: number;
  /** Compression of produced record batches. Default none: a local broker gains nothing from gzip but its CPU cost. */
  compression: 'none' | 'gzip';
};

export const DECODER_CONFIG: Spec<DecoderConfig> = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9102, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
  concurrency: int('DECODER_CONCURRENCY', 'raw block partitions decoded concurrently', 2, { min: 1, max: 64 }),
  compression: oneOf('DECODER_COMPRESSION', 'compression of produced record batches (gzip when Kafka is across a network)', ['none', 'gzip'] as const, 'none'),
  workers: int('DECODER_WORKERS', 'worker threads decoding blocks (0: main thread)', 1, { min: 0, max: 64 }),
};
