import { type ConfigOf, consumerGroupFields, type Field, int, kafkaFields, leaseFields, logFields, metricsFields, redisFields, serviceSpec } from '@tonstream/runtime';

/** `FROM..TO`, masterchain seqnos, FROM <= TO; unset: null. */
const seqnoRange = (env: string, doc: string): Field<{ from: number; to: number } | null> => ({
  env,
  doc,
  default: null,
  accepts: '`FROM..TO`, masterchain seqnos (1 <= FROM <= TO)',
  parse(raw) {
    const m = /^\s*(\d+)\s*\.\.\s*(\d+)\s*$/.exec(raw);
    const [from, to] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) throw new Error(`expected FROM..TO with 1 <= FROM <= TO, got ${JSON.stringify(raw)}`);
    return { from, to };
  },
});

/** The tracer's environment variables (its README's table is rendered from these). */
export const TRACER_CONFIG = {
  kafkaBrokers: kafkaFields.kafkaBrokers,
  topicPrefix: { ...kafkaFields.topicPrefix, doc: 'prefix of every topic name, consumer group and Redis key' },
  kafkaPartitions: kafkaFields.kafkaPartitions,
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding the incomplete traces (and the lease)' },
  incompleteAfterMcBlocks: int('TRACER_INCOMPLETE_AFTER_MC_BLOCKS', 'masterchain blocks a trace may stay pending after its first before it is published as incomplete (1000: about 1.5 h of mainnet)', 1000, { min: 1, max: 10_000_000 }),
  giveUpAfterMcBlocks: int('TRACER_GIVE_UP_AFTER_MC_BLOCKS', 'a masterchain block that does not complete (records dead-lettered or refused) is traced with the records that arrived once a block this many seqnos later is whole and every partition has moved past it (100: a few minutes of mainnet; about that many blocks of records wait in memory)', 100, { min: 1, max: 100_000 }),
  giveUpAfterMs: int('TRACER_GIVE_UP_AFTER_MS', '...or, when a partition stays silent, once it has waited this long (ms) with later blocks whole', 600_000, { min: 1_000, max: 7 * 86_400_000 }),
  lane: seqnoRange('TRACER_LANE', 'a history lane\'s tracer (npm run backfill sets it): publish only traces rooted in this range, trace on TRACER_LANE_OVERLAP seqnos past it, then exit 0 (unset: the live tracer)'),
  laneOverlap: int('TRACER_LANE_OVERLAP', 'masterchain seqnos a history lane traces past its range, so that a trace crossing into the next lane is assembled whole here (traces still pending then are published incomplete)', 16, { min: 0, max: 100_000 }),
  ...leaseFields,
  ...metricsFields(9105),
  ...consumerGroupFields(30_000),
  ...logFields,
};

export type TracerConfig = ConfigOf<typeof TRACER_CONFIG>;

export const TRACER_SERVICE = serviceSpec('tracer', TRACER_CONFIG);
