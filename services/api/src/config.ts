import { bool, clickhouseFields, hotTierFields, type ConfigOf, defaultFrom, type Field, int, kafkaFields, logFields, oneOf, redisFields, serviceSpec, str, url } from '@tonstream/runtime';
import { DEFAULT_LIMIT, MAX_LIMIT } from './http/params.js';

/** An http(s) URL, or `none`. */
function urlOrNone(env: string, doc: string, def: string): Field<string> {
  const plain = url(env, doc, def);
  return { ...plain, accepts: `${plain.accepts} or none`, parse: (raw) => (raw === 'none' ? raw : plain.parse(raw)) };
}

/** The API's environment variables (its README's table is rendered from these). */
export const API_CONFIG = {
  host: str('API_HOST', 'interface the HTTP API listens on', '127.0.0.1'),
  port: int('API_PORT', 'HTTP API port', 8081, { min: 0, max: 65535 }),
  workers: int('API_WORKERS', 'API processes sharing API_PORT (node:cluster; one Node process uses one core: e.g. one per core). A worker that dies is replaced; /metrics sums them all', 1, { min: 1, max: 64 }),
  ...clickhouseFields,
  ...logFields,
  testnet: bool('API_TESTNET', 'user-friendly addresses in address_book carry the test-only flag (`kQ…`/`0Q…`)', false),
  rateLimit: oneOf('API_RATE_LIMIT', 'API keys and rate limits on /api/v2 and /api/v3 (`on` for a public instance)', ['on', 'off'] as const, 'off'),
  anonymousRps: int('API_RATE_LIMIT_ANONYMOUS_RPS', 'requests per second per client IP without a key (1: toncenter\'s hosted default)', 1, { min: 1, max: 1_000_000 }),
  redisUrl: { ...redisFields.redisUrl, doc: 'Redis holding API keys and rate-limit windows, shared by every API process (also read by `npm run keys`), and the emulator\'s pending traces' },
  redisPrefix: str('API_REDIS_PREFIX', 'prefix of the Redis keys of API keys and limits', 'tonstream:api:'),
  pendingRedisPrefix: str('PENDING_REDIS_PREFIX', 'prefix of the emulator\'s pending trace keys in Redis (REDIS_URL), read by the pending endpoints', 'tonstream:'),
  ...hotTierFields,
  trustProxy: int('API_TRUST_PROXY', 'reverse proxies in front of the API whose `X-Forwarded-For` names the client IP the limits count', 0, { min: 0, max: 16 }),
  streamingUrl: defaultFrom(
    urlOrNone('API_STREAMING_URL', 'the streamer `/api/streaming/v2/sse`, `/ws` and `/api/streaming/healthz` are passed on to (one origin, as toncenter.com; see services/streamer/README.md); `none`: not served here', 'http://127.0.0.1:8082'),
    (env) => `http://127.0.0.1:${env.STREAMER_PORT || 8082}`,
    '`http://127.0.0.1:$STREAMER_PORT` (8082)',
  ),
  defaultLimit: int('API_DEFAULT_LIMIT', 'v3 page size when a request sends no `limit` (toncenter\'s docs and hosted service: 10; its server\'s `-default-limit` flag: 100)', DEFAULT_LIMIT, { min: 1, max: MAX_LIMIT }),
  checkResponses: oneOf('API_CHECK_RESPONSES', 'v3 answers checked against the served OpenAPI document: `log` reports a mismatch (logged and counted in `tonstream_api_openapi_mismatches_total{route}`), `reject` answers 500 naming it (what the integration suites run with)', ['off', 'log', 'reject'] as const, 'off'),
  globalConfig: defaultFrom(
    str('API_GLOBAL_CONFIG', 'TON global config (liteservers) of the v2 node-level methods; the fetcher\'s variable is the fallback, so one setting serves both; `none`: no liteservers (those methods answer 503)', '.local/localnet/global.config.json'),
    (env) => env.FETCHER_GLOBAL_CONFIG ?? '.local/localnet/global.config.json',
    '`$FETCHER_GLOBAL_CONFIG`, else `.local/localnet/global.config.json`',
  ),
  kafkaBrokers: { ...kafkaFields.kafkaBrokers, doc: 'Kafka, where accepted externals are published for the emulator (ton.pending_externals)' },
  topicPrefix: kafkaFields.topicPrefix,
};

export type ApiConfig = ConfigOf<typeof API_CONFIG>;

export const API_SERVICE = serviceSpec('api', API_CONFIG);

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return API_SERVICE.load(env, []);
}
