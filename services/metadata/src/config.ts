import { bool, clickhouseFields, type ConfigOf, int, logFields, metricsFields, serviceSpec, url } from '@tonstream/runtime';

/** The metadata worker's environment variables (its README's table is rendered from these). */
export const METADATA_CONFIG = {
  clickhouseUrl: { ...clickhouseFields.clickhouseUrl, doc: 'ClickHouse HTTP endpoint of the index: its token tables are scanned and the metadata cache lives there' },
  clickhouseDatabase: clickhouseFields.clickhouseDatabase,
  clickhouseCluster: clickhouseFields.clickhouseCluster,
  clickhouseInsertQuorum: clickhouseFields.clickhouseInsertQuorum,
  ipfsGateway: url('METADATA_IPFS_GATEWAY', 'IPFS gateway `ipfs://<cid>/<path>` is fetched through (the CID and path are appended)', 'https://ipfs.io/ipfs/'),
  timeoutMs: int('METADATA_TIMEOUT_MS', 'time limit (ms) of one fetch, redirects and body included', 10_000, { min: 100, max: 600_000 }),
  maxBytes: int('METADATA_MAX_BYTES', 'largest metadata document accepted, in bytes', 1_048_576, { min: 1_024, max: 104_857_600 }),
  maxRedirects: int('METADATA_MAX_REDIRECTS', 'redirects followed per fetch', 5, { min: 0, max: 20 }),
  maxAttempts: int('METADATA_MAX_ATTEMPTS', 'attempts of a URI before a transient failure (timeout, network, 5xx) marks it failed', 5, { min: 1, max: 100 }),
  retryBaseMs: int('METADATA_RETRY_BASE_MS', 'first retry delay (ms), doubling per attempt up to METADATA_RETRY_MAX_MS', 5_000, { min: 10, max: 86_400_000 }),
  retryMaxMs: int('METADATA_RETRY_MAX_MS', 'longest retry delay (ms)', 3_600_000, { min: 10, max: 604_800_000 }),
  hostRate: int('METADATA_HOST_RATE', 'requests started per host per second', 2, { min: 1, max: 10_000 }),
  concurrency: int('METADATA_CONCURRENCY', 'fetches in flight at once', 16, { min: 1, max: 1_024 }),
  pollIntervalMs: int('METADATA_POLL_INTERVAL_MS', 'how often (ms) new token states are looked for', 1_000, { min: 50, max: 600_000 }),
  scanSeqnos: int('METADATA_SCAN_SEQNOS', 'masterchain blocks scanned per discovery query', 1_000, { min: 1, max: 10_000_000 }),
  maxUnflushed: int('METADATA_MAX_UNFLUSHED', 'fetch outcomes held in memory while ClickHouse refuses writes (fetching pauses at this many)', 2_000, { min: 1, max: 1_000_000 }),
  dangerouslyAllowPrivateGateway: bool('METADATA_DANGEROUSLY_ALLOW_PRIVATE_GATEWAY', 'let the IPFS gateway origin (only that; anyone can write a URI on chain) be on loopback or a private network', false),
  ...metricsFields(9108),
  ...logFields,
};

export type MetadataConfig = ConfigOf<typeof METADATA_CONFIG>;

export const METADATA_SERVICE = serviceSpec('metadata', METADATA_CONFIG);
