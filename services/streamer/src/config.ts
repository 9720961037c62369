import { isIP } from 'node:net';
import { bool, type Field, hostPorts, int, LOG_LEVELS, oneOf, str, url, type LogLevel, type Spec } from '@tonstream/runtime';

/** Comma-separated IP addresses and `address/prefix` ranges. */
function addressRanges(env: string, doc: string, def: string[]): Field<string[]> {
  return {
    env,
    doc,
    default: def,
    accepts: 'comma-separated IP addresses or address/prefix ranges',
    parse: (raw) =>
      raw.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
        const [address, prefix, extra] = entry.split('/');
        const family = isIP(address);
        const max = family === 6 ? 128 : 32;
        if (family === 0 || extra !== undefined || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))) throw new Error(`not an address or range: ${entry}`);
        return entry;
      }),
  };
}

/** The streamer's configuration, from environment variables (README lists them). */
export type StreamerConfig = {
  /** Kafka bootstrap brokers. Default 127.0.0.1:9092. */
  kafkaBrokers: string[];
  /** Prefix of every topic name. Default ''. */
  topicPrefix: string;
  /** ClickHouse holding the watermark (finalized = stored under it). Default http://127.0.0.1:8123. */
  clickhouseUrl: string;
  /** Default tonstream. */
  clickhouseDatabase: string;
  /** Interface and port of the streaming HTTP server. Default 127.0.0.1:8082. */
  host: string;
  port: number;
  /** SSE keepalive comment period. Default 15000 (toncenter's; the Python SDK gives up after 30 s of silence). */
  keepaliveMs: number;
  /** How often the watermark is read. Default 250. */
  watermarkPollMs: number;
  /** Resume window: masterchain blocks of events kept per stage, and read back from Kafka at start. Default 2000. */
  retainMcBlocks: number;
  /** Resume window bound: estimated heap bytes of its events' records and every view's JSON. Default 256 MiB. */
  retainMaxBytes: number;
  /** How far back (ms of Kafka time) a starting streamer reads to refill the resume window. Default 600000. */
  replayMs: number;
  /** How long a whole block waits for the tracer's records of the traces it completed (its `actions`/`trace` events); 0: never. Default 5000. */
  tracerWaitMs: number;
  /** Confirmed blocks kept for their finalized step; at this many, reading waits for the watermark. */
  maxUnfinalizedBlocks: number;
  /**
   * A masterchain block that does not complete (records dead-lettered or refused) goes out with the
   * records that arrived once a block this many seqnos later is whole and every partition has moved past
   * it. Default 30 (about a minute of mainnet without events).
   */
  giveUpAfterMcBlocks: number;
  /** ...or, when a partition stays silent, once it has waited this long with later blocks whole. Default 600000 (10 min). */
  giveUpAfterMs: number;
  /** How long an emission waits for its `address_book` / `metadata` lookup before it goes with what is known. Default 200. */
  extrasWaitMs: number;
  /** How long an address's looked-up facts and token metadata are kept before they are read again. Default 60000. */
  extrasTtlMs: number;
  /** Addresses whose facts and metadata are kept. Default 100000. */
  extrasCacheEntries: number;
  /** Addresses one subscription may list. Default 10000. */
  maxAddresses: number;
  /** Largest SSE body or WebSocket frame, bytes. Default 1 MiB. */
  maxRequestBytes: number;
  /** A client whose unsent output exceeds this is dropped. Default 4 MiB. */
  maxBufferedBytes: number;
  /** A client whose oldest unsent output is older than this (ms) is dropped. Default 10000. */
  maxUnsentMs: number;
  /** Connections per API key (checked against the API's key store in Redis); -1 unlimited. Default 100. */
  maxConnectionsPerKey: number;
  /** Connections per client address without a key; -1 unlimited. Default 10. */
  maxConnectionsAnonymous: number;
  /** Take `X-Limiting-Key` and the limit headers from requests (only behind a gateway that sets them). Default false. */
  trustGatewayHeaders: boolean;
  /**
   * Peers (addresses, `address/prefix` ranges) whose X-Forwarded-For names the client: the API passing
   * /api/streaming/v2/* on. Default 127.0.0.1,::1 (the API on the same machine).
   */
  trustedProxies: string[];
  /** Redis holding the API's keys (API_REDIS_PREFIX as the API's). Default redis://127.0.0.1:6379. */
  redisUrl: string;
  redisPrefix: string;
  /** Check API keys at all; false: every connection counts as anonymous. Default true. */
  checkApiKeys: boolean;
  /** How often the keys of open connections are looked up again (a revoked key's connections are cut). Default 30000. */
  keyRecheckMs: number;
  metricsHost: string;
  metricsPort: number;
  logLevel: LogLevel;
};

export const STREAMER_CONFIG: Spec<StreamerConfig> = {
  kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka bootstrap brokers', ['127.0.0.1:9092']),
  topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
  clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP interface (the watermark)', 'http://127.0.0.1:8123', ['http:', 'https:']),
  clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'ClickHouse database', 'tonstream'),
  host: str('STREAMER_HOST', 'interface the streaming server listens on', '127.0.0.1'),
  port: int('STREAMER_PORT', 'streaming server port', 8082, { min: 0, max: 65535 }),
  keepaliveMs: int('STREAMER_KEEPALIVE_MS', 'SSE keepalive period', 15_000, { min: 100, max: 29_000 }),
  watermarkPollMs: int('STREAMER_WATERMARK_POLL_MS', 'watermark poll period', 250, { min: 20, max: 60_000 }),
  retainMcBlocks: int('STREAMER_RETAIN_MC_BLOCKS', 'masterchain blocks of events kept for resume', 2000, { min: 1, max: 1_000_000 }),
  retainMaxBytes: int('STREAMER_RETAIN_MAX_BYTES', 'bytes of events kept for resume', 256 * 1024 * 1024, { min: 1024, max: 2 ** 40 }),
  replayMs: int('STREAMER_REPLAY_MS', 'Kafka time read back at start to refill the resume window', 600_000, { min: 0, max: 7 * 86_400_000 }),
  tracerWaitMs: int('STREAMER_TRACER_WAIT_MS', 'how long a block waits for the tracer\'s records of the traces it completed', 5_000, { min: 0, max: 600_000 }),
  maxUnfinalizedBlocks: int('STREAMER_MAX_UNFINALIZED_BLOCKS', 'confirmed masterchain blocks held for the watermark; at this many, reading pauses until it moves', 1_000, { min: 1, max: 1_000_000 }),
  giveUpAfterMcBlocks: int('STREAMER_GIVE_UP_AFTER_MC_BLOCKS', 'masterchain blocks a later whole block may be ahead of an incomplete one before that one goes out with the records that arrived', 30, { min: 1, max: 100_000 }),
  giveUpAfterMs: int('STREAMER_GIVE_UP_AFTER_MS', 'how long an incomplete masterchain block is waited for when a partition stays silent', 600_000, { min: 1_000, max: 7 * 86_400_000 }),
  extrasWaitMs: int('STREAMER_EXTRAS_WAIT_MS', 'how long an emission waits for its address_book / metadata lookup', 200, { min: 0, max: 10_000 }),
  extrasTtlMs: int('STREAMER_EXTRAS_TTL_MS', 'how long looked-up address facts and token metadata are kept', 60_000, { min: 0, max: 86_400_000 }),
  extrasCacheEntries: int('STREAMER_EXTRAS_CACHE_ENTRIES', 'addresses whose looked-up facts and metadata are kept', 100_000, { min: 1, max: 10_000_000 }),
  maxAddresses: int('STREAMER_MAX_ADDRESSES', 'addresses one subscription may list', 10_000, { min: 1, max: 1_000_000 }),
  maxRequestBytes: int('STREAMER_MAX_REQUEST_BYTES', 'largest SSE body or WebSocket frame', 1024 * 1024, { min: 1024, max: 64 * 1024 * 1024 }),
  maxBufferedBytes: int('STREAMER_MAX_BUFFERED_BYTES', 'unsent bytes after which a client is dropped', 4 * 1024 * 1024, { min: 1024, max: 1024 * 1024 * 1024 }),
  maxUnsentMs: int('STREAMER_MAX_UNSENT_MS', 'age of the oldest unsent output after which a client is dropped', 10_000, { min: 100, max: 3_600_000 }),
  maxConnectionsPerKey: int('STREAMER_MAX_CONNECTIONS_PER_KEY', 'connections per API key (-1 unlimited)', 100, { min: -1, max: 1_000_000 }),
  maxConnectionsAnonymous: int('STREAMER_MAX_CONNECTIONS_ANONYMOUS', 'connections per client address without a key (-1 unlimited)', 10, { min: -1, max: 1_000_000 }),
  trustedProxies: addressRanges('STREAMER_TRUSTED_PROXIES', 'peers whose X-Forwarded-For names the client (the API)', ['127.0.0.1', '::1']),
  trustGatewayHeaders: bool('STREAMER_TRUST_GATEWAY_HEADERS', 'take X-Limiting-Key and the limit headers from requests (behind a gateway only)', false),
  redisUrl: url('REDIS_URL', 'Redis holding the API keys', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  redisPrefix: str('API_REDIS_PREFIX', 'prefix of the API\'s Redis keys', 'tonstream:api:'),
  checkApiKeys: bool('STREAMER_CHECK_API_KEYS', 'check API keys against the API key store', true),
  keyRecheckMs: int('STREAMER_KEY_RECHECK_MS', 'period of the revoked-key check of open connections', 30_000, { min: 100, max: 3_600_000 }),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9107, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
};
