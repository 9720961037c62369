import { clickhouseFields, type ConfigOf, consumerGroupFields, hotTierFields, int, kafkaFields, logFields, metricsFields, oneOf, redisFields, serviceSpec } from '@tonstream/runtime';

/** The writer's environment variables (its README's table is rendered from these). */
export const WRITER_CONFIG = {
  ...kafkaFields,
  clickhouseUrl: clickhouseFields.clickhouseUrl,
  clickhouseDatabase: { ...clickhouseFields.clickhouseDatabase, doc: 'ClickHouse database of the tables (created and migrated at start)' },
  clickhouseCluster: clickhouseFields.clickhouseCluster,
  clickhouseInsertQuorum: clickhouseFields.clickhouseInsertQuorum,
  batchRows: int('WRITER_BATCH_ROWS', 'records per ClickHouse batch at most', 10_000, { min: 1, max: 1_000_000 }),
  flushMs: int('WRITER_FLUSH_MS', 'longest wait before a partial batch is written (ms)', 200, { min: 1, max: 600_000 }),
  watermarks: oneOf('WRITER_WATERMARKS', '`on`: keep the index\'s watermark and traces watermark from the receipts (any number of writers may); `off`: a history lane\'s writer (npm run backfill sets it), which stores rows and receipts only', ['on', 'off'] as const, 'on'),
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis of the hot tier (HOT_TIER)' },
  ...hotTierFields,
  ...metricsFields(9103),
  ...consumerGroupFields(30_000),
  ...logFields,
};

export type WriterConfig = ConfigOf<typeof WRITER_CONFIG>;

export const WRITER_SERVICE = serviceSpec('writer', WRITER_CONFIG);
