import { isIP } from 'node:net';
import { bool, clickhouseFields, type ConfigOf, type Field, int, kafkaFields, logFields, metricsFields, oneOf, redisFields, serviceSpec, str } from '@tonstream/runtime';

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

/** The streamer's environment variables (its README's table is rendered from these). */
export const STREAMER_CONFIG = {
  ...kafkaFields,
  clickhouseUrl: { ...clickhouseFields.clickhouseUrl, doc: 'ClickHouse holding the watermark (finalized = stored under it)' },
  clickhouseDatabase: clickhouseFields.clickhouseDatabase,
  clickhouseCluster: clickhouseFields.clickhouseCluster,
  clickhouseInsertQuorum: clickhouseFields.clickhouseInsertQuorum,
  host: str('STREAMER_HOST', 'interface the streaming HTTP server listens on', '127.0.0.1'),
  port: int('STREAMER_PORT', 'port of the streaming HTTP server', 8082, { min: 0, max: 65535 }),
  keepaliveMs: int('STREAMER_KEEPALIVE_MS', 'SSE keepalive comment period (ms; toncenter\'s 15000: the Python SDK gives up after 30 s of silence)', 15_000, { min: 100, max: 29_000 }),
  watermarkPollMs: int('STREAMER_WATERMARK_POLL_MS', 'how often the watermark is read (ms)', 250, { min: 20, max: 60_000 }),
  retainMcBlocks: int('STREAMER_RETAIN_MC_BLOCKS', 'resume window: masterchain blocks of events kept per stage, and read back from Kafka at start', 2000, { min: 1, max: 1_000_000 }),
  retainMaxBytes: int('STREAMER_RETAIN_MAX_BYTES', 'resume window bound: estimated heap bytes of its events\' records and every view\'s JSON', 256 * 1024 * 1024, { min: 1024, max: 2 ** 40 }),
  replayMs: int('STREAMER_REPLAY_MS', 'how far back (ms of Kafka time) a starting streamer reads to refill the resume window', 600_000, { min: 0, max: 7 * 86_400_000 }),
  tracerWaitMs: int('STREAMER_TRACER_WAIT_MS', 'how long (ms) a whole block waits for the tracer\'s records of the traces it completed (its `actions`/`trace` events); 0: never', 5_000, { min: 0, max: 600_000 }),
  giveUpAfterMcBlocks: int('STREAMER_GIVE_UP_AFTER_MC_BLOCKS', 'a masterchain block that does not complete (records dead-lettered or refused) goes out with the records that arrived once a block this many seqnos later is whole and every partition has moved past it (30: about a minute of mainnet)', 30, { min: 1, max: 100_000 }),
  giveUpAfterMs: int('STREAMER_GIVE_UP_AFTER_MS', '...or, when a partition stays silent, once it has waited this long (ms) with later blocks whole', 600_000, { min: 1_000, max: 7 * 86_400_000 }),
  maxUnfinalizedBlocks: int('STREAMER_MAX_UNFINALIZED_BLOCKS', 'confirmed masterchain blocks held until the watermark covers them (their finalized step); at this many the streamer stops reading until the watermark moves (health says so), rather than grow without bound or skip finalized events', 1_000, { min: 1, max: 1_000_000 }),
  extrasWaitMs: int('STREAMER_EXTRAS_WAIT_MS', 'how long (ms) an emission waits for its `address_book` / `metadata` lookup before it goes with what is known', 200, { min: 0, max: 10_000 }),
  extrasTtlMs: int('STREAMER_EXTRAS_TTL_MS', 'how long (ms) looked-up address facts and token metadata are kept before they are read again', 60_000, { min: 0, max: 86_400_000 }),
  extrasCacheEntries: int('STREAMER_EXTRAS_CACHE_ENTRIES', 'addresses whose looked-up facts and metadata are kept', 100_000, { min: 1, max: 10_000_000 }),
  maxAddresses: int('STREAMER_MAX_ADDRESSES', 'addresses one subscription may list', 10_000, { min: 1, max: 1_000_000 }),
  maxRequestBytes: int('STREAMER_MAX_REQUEST_BYTES', 'largest SSE body or WebSocket frame (bytes)', 1024 * 1024, { min: 1024, max: 64 * 1024 * 1024 }),
  maxBufferedBytes: int('STREAMER_MAX_BUFFERED_BYTES', 'slow client: unsent bytes after which it is dropped', 4 * 1024 * 1024, { min: 1024, max: 1024 * 1024 * 1024 }),
  maxUnsentMs: int('STREAMER_MAX_UNSENT_MS', 'slow client: age (ms) of the oldest unsent output after which it is dropped', 10_000, { min: 100, max: 3_600_000 }),
  maxConnectionsPerKey: int('STREAMER_MAX_CONNECTIONS_PER_KEY', 'connections per API key (checked against the API\'s key store in Redis); -1 unlimited', 100, { min: -1, max: 1_000_000 }),
  maxConnectionsAnonymous: int('STREAMER_MAX_CONNECTIONS_ANONYMOUS', 'connections per client address without a key; -1 unlimited', 10, { min: -1, max: 1_000_000 }),
  connectionCount: oneOf(
    'STREAMER_CONNECTION_COUNT',
    'where connections are counted against their limits: `shared` by every streamer through Redis (REDIS_URL; in each process while Redis is unreachable), `process` in each streamer alone (as toncenter\'s nodes)',
    ['shared', 'process'] as const,
    'shared',
  ),
  trustGatewayHeaders: bool('STREAMER_TRUST_GATEWAY_HEADERS', 'take `X-Limiting-Key` and the limit headers from requests (only behind a gateway that sets them)', false),
  trustedProxies: addressRanges('STREAMER_TRUSTED_PROXIES', 'peers whose `X-Forwarded-For` names the client: the API passing /api/streaming/v2/* on (default: the API on the same machine)', ['127.0.0.1', '::1']),
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding the API\'s keys and the connections every streamer counts (STREAMER_CONNECTION_COUNT)' },
  redisPrefix: str('API_REDIS_PREFIX', 'prefix of the API\'s Redis keys (as the API\'s); the shared connection counts are `<prefix>connections:<KAFKA_TOPIC_PREFIX><limiting key>`', 'tonstream:api:'),
  checkApiKeys: bool('STREAMER_CHECK_API_KEYS', 'check API keys at all; `false`: every connection counts as anonymous', true),
  keyRecheckMs: int('STREAMER_KEY_RECHECK_MS', 'how often (ms) the keys of open connections are looked up again (a revoked key\'s connections are cut)', 30_000, { min: 100, max: 3_600_000 }),
  ...metricsFields(9107),
  ...logFields,
};

export type StreamerConfig = ConfigOf<typeof STREAMER_CONFIG>;

export const STREAMER_SERVICE = serviceSpec('streamer', STREAMER_CONFIG);
