import { type ConfigOf, consumerGroupFields, int, kafkaFields, leaseFields, logFields, metricsFields, redisFields, serviceSpec } from '@tonstream/runtime';

/** The tracer's environment variables (its README's table is rendered from these). */
export const TRACER_CONFIG = {
  kafkaBrokers: kafkaFields.kafkaBrokers,
  topicPrefix: { ...kafkaFields.topicPrefix, doc: 'prefix of every topic name, consumer group and Redis key' },
  kafkaPartitions: kafkaFields.kafkaPartitions,
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding the incomplete traces (and the lease)' },
  incompleteAfterMcBlocks: int('TRACER_INCOMPLETE_AFTER_MC_BLOCKS', 'masterchain blocks a trace may stay pending after its first before it is published as incomplete (1000: about 1.5 h of mainnet)', 1000, { min: 1, max: 10_000_000 }),
  giveUpAfterMcBlocks: int('TRACER_GIVE_UP_AFTER_MC_BLOCKS', 'a masterchain block that does not complete (records dead-lettered or refused) is traced with the records that arrived once a block this many seqnos later is whole and every partition has moved past it (100: a few minutes of mainnet; about that many blocks of records wait in memory)', 100, { min: 1, max: 100_000 }),
  giveUpAfterMs: int('TRACER_GIVE_UP_AFTER_MS', '...or, when a partition stays silent, once it has waited this long (ms) with later blocks whole', 600_000, { min: 1_000, max: 7 * 86_400_000 }),
  ...leaseFields,
  ...metricsFields(9105),
  ...consumerGroupFields(30_000),
  ...logFields,
};

export type TracerConfig = ConfigOf<typeof TRACER_CONFIG>;

export const TRACER_SERVICE = serviceSpec('tracer', TRACER_CONFIG);
