/**
 * Variables several services read, declared once. A service composes these into its fields
 * (`{ ...kafkaFields, ...metricsFields(9102), ... }`); where the meaning differs for one service it
 * overrides the doc only (`{ ...redisFields.redisUrl, doc: '…' }`), never the name, default or check.
 */
import { hostPorts, int, oneOf, str, url } from './config.js';
import { LOG_LEVELS } from './logger.js';

export const kafkaFields = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name and consumer group (isolates deployments and test runs sharing a cluster)', ''),
  kafkaPartitions: int(
    'KAFKA_PARTITIONS',
    'partitions of each topic the service creates (the most processes of a stage that share its work); topics that exist keep theirs (deploy/README.md, scale-out: repartitioning)',
    4,
    { min: 1, max: 1024 },
  ),
};

/** The consumer-group timing of a service that consumes in a group (its default its own, as metricsFields' port). */
export function consumerGroupFields(defaultSessionTimeoutMs: number) {
  return {
    kafkaSessionTimeoutMs: int(
      'KAFKA_SESSION_TIMEOUT_MS',
      'how long the consumer may go silent before Kafka gives its partitions to another member: after a kill -9 the restarted process waits this long for them (the broker accepts 6,000 to 300,000 by default)',
      defaultSessionTimeoutMs,
      { min: 1_000, max: 3_600_000 },
    ),
  };
}

export const clickhouseFields = {
  clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP endpoint of the index', 'http://127.0.0.1:8123'),
  clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'ClickHouse database holding the index', 'tonstream'),
  clickhouseCluster: str('CLICKHOUSE_CLUSTER', 'the ClickHouse cluster (a `remote_servers` name) the index is sharded and replicated over; empty: one server (deploy/README.md, scale-out)', ''),
  clickhouseInsertQuorum: int('CLICKHOUSE_INSERT_QUORUM', 'with CLICKHOUSE_CLUSTER: replicas of a shard that must have an insert before it counts as stored (the replicas per shard, so a read on any replica has what the watermark vouches for)', 2, { min: 1, max: 16 }),
};

/** The store's options (@tonstream/store createStore) from the configuration. */
export function clickhouseOptions(config: { clickhouseUrl: string; clickhouseDatabase: string; clickhouseCluster: string; clickhouseInsertQuorum: number }) {
  return { url: config.clickhouseUrl, database: config.clickhouseDatabase, cluster: config.clickhouseCluster || undefined, insertQuorum: config.clickhouseInsertQuorum };
}

export const redisFields = {
  redisUrl: url('REDIS_URL', 'Redis URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
};

/**
 * A process that runs as one active instance with hot standbys (the live fetcher, the tracer) holds a
 * lease in Redis (REDIS_URL) while it works: @tonstream/lease.
 */
export const leaseFields = {
  lease: oneOf(
    'LEASE',
    '`on`: work only while holding the lease `<KAFKA_TOPIC_PREFIX>lease:<service>` in Redis (REDIS_URL); without it the process waits as a hot standby (healthy, `standby`), and it exits 1 when it loses it. `off`: a single instance, no lease',
    ['on', 'off'] as const,
    'off',
  ),
  leaseTtlMs: int(
    'LEASE_TTL_MS',
    'how long the lease outlives its holder\'s last renewal (renewed every third of it; the holder stops a quarter of it early): a standby takes over about this long after the holder dies',
    10_000,
    { min: 1_000, max: 600_000 },
  ),
};

/** The lease's name in Redis: one per service and deployment (topic prefix). */
export function leaseKey(topicPrefix: string, service: string): string {
  return `${topicPrefix}lease:${service}`;
}

/** The hot tier for point reads (@tonstream/store hot/): written by the writer, read by the API. */
export const hotTierFields = {
  hotTier: oneOf('HOT_TIER', 'the hot tier of point reads in Redis (REDIS_URL): `on` writes (writer) and reads (API) it, `off` neither', ['on', 'off'] as const, 'on'),
  hotTierPrefix: str('HOT_TIER_PREFIX', 'prefix of the hot tier\'s Redis keys; empty: `tonstream:hot:<CLICKHOUSE_DATABASE>:`', ''),
  hotTierTtlSeconds: int('HOT_TIER_TTL_SECONDS', 'seconds an account stays in the hot tier after its last write (then read from ClickHouse)', 30 * 24 * 3600, { min: 60, max: 10 * 365 * 24 * 3600 }),
  hotTierTxWindowSeconds: int(
    'HOT_TIER_TX_WINDOW_SECONDS',
    'seconds a transaction stays in the hot tier after its write (a rebuild loads those of the masterchain blocks of this last stretch of chain time; ~3.4 KB a transaction); 0: no transactions in the tier',
    6 * 3600,
    { min: 0, max: 30 * 365 * 24 * 3600 },
  ),
};

/** The hot tier's options (@tonstream/store connectHotTier) from the configuration. */
export function hotTierOptions(config: { hotTierPrefix: string; clickhouseDatabase: string; hotTierTtlSeconds: number; hotTierTxWindowSeconds: number }) {
  return { prefix: config.hotTierPrefix, database: config.clickhouseDatabase, ttlSeconds: config.hotTierTtlSeconds, txWindowSeconds: config.hotTierTxWindowSeconds };
}

export const logFields = {
  logLevel: oneOf('LOG_LEVEL', 'least severe level logged', LOG_LEVELS, 'info'),
};

/** Where `/metrics` and `/healthcheck` listen; each service has a default port of its own. */
export function metricsFields(defaultPort: number) {
  return {
    metricsHost: str('METRICS_HOST', 'interface of /metrics and /healthcheck', '127.0.0.1'),
    metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', defaultPort, { min: 0, max: 65535 }),
  };
}
