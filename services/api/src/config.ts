import { bool, type Field, hostPorts, int, LOG_LEVELS, type LogLevel, loadConfig, oneOf, str, url } from '@tonstream/runtime';
import { DEFAULT_LIMIT, MAX_LIMIT } from './http/params.js';

export type ApiConfig = {
  /** Interface the HTTP API listens on. @default 127.0.0.1 */
  host: string;
  /** @default 8081 */
  port: number;
  /** @default http://127.0.0.1:8123 */
  clickhouseUrl: string;
  /** @default tonstream */
  clickhouseDatabase: string;
  logLevel: LogLevel;
  /** User-friendly addresses in address_book carry the test-only flag (`kQ…`/`0Q…`). @default false */
  testnet: boolean;
  /** API keys and rate limits on /api/v2 and /api/v3 (`on` for a public instance). @default off */
  rateLimit: 'on' | 'off';
  /** Requests per second per client IP without a key. @default 1 (toncenter's hosted default) */
  anonymousRps: number;
  /** Where keys and request windows live, shared by every API process. @default redis://127.0.0.1:6379 */
  redisUrl: string;
  /** Prefix of the Redis keys the limits use. @default tonstream:api: */
  redisPrefix: string;
  /** Reverse proxies in front of the API whose X-Forwarded-For names the client IP the limits count. @default 0 */
  trustProxy: number;
  /**
   * v3 page size when a request sends no `limit` (toncenter's docs and hosted service: 10; its server's
   * `-default-limit` flag: 100). @default 10
   */
  defaultLimit: number;
  /**
   * The streamer, where `/api/streaming/v2/sse` and `/ws` are passed on (one origin, as toncenter.com);
   * `none`: not served here. @default http://127.0.0.1:$STREAMER_PORT (8082)
   */
  streamingUrl: string;
  /**
   * TON global config (liteservers) for the v2 node-level methods; the fetcher's variable is the
   * fallback, so one setting serves both. `none`: no liteservers (those methods answer 503).
   * @default $FETCHER_GLOBAL_CONFIG, else .local/localnet/global.config.json
   */
  globalConfig: string;
  /** Prefix of the emulator's pending trace keys in Redis (REDIS_URL), read by the pending endpoints. @default tonstream: */
  pendingRedisPrefix: string;
  /** Kafka, where accepted externals are published for the emulator (ton.pending_externals). @default 127.0.0.1:9092 */
  kafkaBrokers: string[];
  /** Prefix of the topic names, as every service's KAFKA_TOPIC_PREFIX. @default '' */
  topicPrefix: string;
  /** v3 answers checked against the served OpenAPI document: `log` reports a mismatch, `reject` answers 500 naming it (tests). @default off */
  checkResponses: 'off' | 'log' | 'reject';
};

/** An http(s) URL, or `none`. */
function urlOrNone(env: string, doc: string, def: string): Field<string> {
  const plain = url(env, doc, def);
  return { ...plain, accepts: `${plain.accepts} or none`, parse: (raw) => (raw === 'none' ? raw : plain.parse(raw)) };
}

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return loadConfig(
    {
      host: str('API_HOST', 'interface the HTTP API listens on', '127.0.0.1'),
      port: int('API_PORT', 'HTTP API port', 8081, { min: 0, max: 65535 }),
      clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP endpoint', 'http://127.0.0.1:8123'),
      clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'database holding the index', 'tonstream'),
      logLevel: oneOf('LOG_LEVEL', 'least severe level logged', LOG_LEVELS, 'info'),
      testnet: bool('API_TESTNET', 'user-friendly addresses with the test-only flag', false),
      rateLimit: oneOf('API_RATE_LIMIT', 'API keys and rate limits', ['on', 'off'] as const, 'off'),
      anonymousRps: int('API_RATE_LIMIT_ANONYMOUS_RPS', 'requests per second per client IP without a key', 1, { min: 1, max: 1_000_000 }),
      redisUrl: url('REDIS_URL', 'Redis holding API keys and rate-limit windows', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
      redisPrefix: str('API_REDIS_PREFIX', 'prefix of the Redis keys of API keys and limits', 'tonstream:api:'),
      streamingUrl: urlOrNone('API_STREAMING_URL', 'the streamer that /api/streaming/v2/* is passed on to (none: not served)', `http://127.0.0.1:${env.STREAMER_PORT || 8082}`),
      defaultLimit: int('API_DEFAULT_LIMIT', 'v3 page size when a request sends no limit', DEFAULT_LIMIT, { min: 1, max: MAX_LIMIT }),
      trustProxy: int('API_TRUST_PROXY', 'reverse proxies whose X-Forwarded-For is trusted for the client IP', 0, { min: 0, max: 16 }),
      pendingRedisPrefix: str('PENDING_REDIS_PREFIX', 'prefix of the pending trace keys in Redis', 'tonstream:'),
      kafkaBrokers: hostPorts('KAFKA_BROKERS', 'Kafka brokers, where accepted externals are published for the emulator', ['127.0.0.1:9092']),
      topicPrefix: str('KAFKA_TOPIC_PREFIX', 'prefix of every topic name', ''),
      checkResponses: oneOf('API_CHECK_RESPONSES', 'check v3 answers against the served OpenAPI document', ['off', 'log', 'reject'] as const, 'off'),
      globalConfig: str('API_GLOBAL_CONFIG', 'TON global config file of the liteservers (none: no liteservers)', env.FETCHER_GLOBAL_CONFIG ?? '.local/localnet/global.config.json'),
    },
    env,
  );
}
