import { bool, int, LOG_LEVELS, oneOf, str, url, type LogLevel, type Spec } from '@tonstream/runtime';

/** The metadata worker's configuration, from environment variables (README lists them). */
export type MetadataConfig = {
  /** The index whose token tables are scanned and where the cache lives. @default http://127.0.0.1:8123 */
  clickhouseUrl: string;
  /** @default tonstream */
  clickhouseDatabase: string;
  /** Gateway `ipfs://<cid>/<path>` is fetched through; the CID is appended. @default https://ipfs.io/ipfs/ */
  ipfsGateway: string;
  /** One fetch, redirects and body included. @default 10000 */
  timeoutMs: number;
  /** Largest metadata document accepted. @default 1048576 */
  maxBytes: number;
  /** @default 5 */
  maxRedirects: number;
  /** Attempts of a URI before a transient failure (timeout, network, 5xx) marks it failed. @default 5 */
  maxAttempts: number;
  /** First retry delay, doubling per attempt up to the max. @default 5000 / 3600000 */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Requests started per host per second. @default 2 */
  hostRate: number;
  /** Fetches in flight at once. @default 16 */
  concurrency: number;
  /** How often new token states are looked for. @default 1000 */
  pollIntervalMs: number;
  /** Masterchain blocks scanned per discovery query. @default 1000 */
  scanSeqnos: number;
  /** Fetch outcomes held in memory while ClickHouse refuses writes; fetching pauses at this many. @default 2000 */
  maxUnflushed: number;
  /** Let the IPFS gateway's origin (only that) be on loopback or a private network (tests, a gateway on the LAN). @default false */
  dangerouslyAllowPrivateGateway: boolean;
  metricsHost: string;
  /** @default 9108 */
  metricsPort: number;
  logLevel: LogLevel;
};

export const METADATA_CONFIG: Spec<MetadataConfig> = {
  clickhouseUrl: url('CLICKHOUSE_URL', 'ClickHouse HTTP URL of the index', 'http://127.0.0.1:8123'),
  clickhouseDatabase: str('CLICKHOUSE_DATABASE', 'database holding the index', 'tonstream'),
  ipfsGateway: url('METADATA_IPFS_GATEWAY', 'IPFS gateway URL ipfs:// URIs are fetched through (the CID is appended)', 'https://ipfs.io/ipfs/'),
  timeoutMs: int('METADATA_TIMEOUT_MS', 'time limit of one fetch, redirects and body included', 10_000, { min: 100, max: 600_000 }),
  maxBytes: int('METADATA_MAX_BYTES', 'largest metadata document accepted, in bytes', 1_048_576, { min: 1_024, max: 104_857_600 }),
  maxRedirects: int('METADATA_MAX_REDIRECTS', 'redirects followed per fetch', 5, { min: 0, max: 20 }),
  maxAttempts: int('METADATA_MAX_ATTEMPTS', 'attempts before a transient failure is final', 5, { min: 1, max: 100 }),
  retryBaseMs: int('METADATA_RETRY_BASE_MS', 'first retry delay (doubles per attempt)', 5_000, { min: 10, max: 86_400_000 }),
  retryMaxMs: int('METADATA_RETRY_MAX_MS', 'longest retry delay', 3_600_000, { min: 10, max: 604_800_000 }),
  hostRate: int('METADATA_HOST_RATE', 'requests started per host per second', 2, { min: 1, max: 10_000 }),
  concurrency: int('METADATA_CONCURRENCY', 'fetches in flight at once', 16, { min: 1, max: 1_024 }),
  pollIntervalMs: int('METADATA_POLL_INTERVAL_MS', 'how often new token states are looked for', 1_000, { min: 50, max: 600_000 }),
  scanSeqnos: int('METADATA_SCAN_SEQNOS', 'masterchain blocks scanned per discovery query', 1_000, { min: 1, max: 10_000_000 }),
  maxUnflushed: int('METADATA_MAX_UNFLUSHED', 'fetch outcomes held in memory while ClickHouse refuses writes (fetching pauses at this many)', 2_000, { min: 1, max: 1_000_000 }),
  dangerouslyAllowPrivateGateway: bool('METADATA_DANGEROUSLY_ALLOW_PRIVATE_GATEWAY', 'let the IPFS gateway origin (only that; anyone can write a URI on chain) be on loopback or a private network', false),
  metricsHost: str('METRICS_HOST', 'address the metrics server listens on', '127.0.0.1'),
  metricsPort: int('METRICS_PORT', 'port of /metrics and /healthcheck', 9108, { min: 0, max: 65535 }),
  logLevel: oneOf('LOG_LEVEL', 'log threshold', LOG_LEVELS, 'info'),
};
