import { type ConfigOf, consumerGroupFields, int, kafkaFields, logFields, metricsFields, oneOf, serviceSpec } from '@tonstream/runtime';

/** The decoder's environment variables (its README's table is rendered from these). */
export const DECODER_CONFIG = {
  ...kafkaFields,
  ...metricsFields(9102),
  ...consumerGroupFields(30_000),
  ...logFields,
  concurrency: int('DECODER_CONCURRENCY', 'raw block partitions decoded at the same time (2: one per core leaves room for Kafka)', 2, { min: 1, max: 64 }),
  compression: oneOf('DECODER_COMPRESSION', 'compression of produced record batches: `gzip` (level 1) when Kafka is across a network; on a local broker it only costs CPU in the decoder and every consumer', ['none', 'gzip'] as const, 'none'),
  workers: int('DECODER_WORKERS', 'worker threads decoding blocks (`0`: on the main thread; 1: Kafka I/O and decoding overlap)', 1, { min: 0, max: 64 }),
};

export type DecoderConfig = ConfigOf<typeof DECODER_CONFIG>;

export const DECODER_SERVICE = serviceSpec('decoder', DECODER_CONFIG);
