export { createMetadataWorker, CURSOR_NAME, type MetadataWorker, type MetadataWorkerDeps, type WorkerConfig } from './worker.js';
export { fetchJson, type FetchFailure, type FetchOptions, type FetchResult } from './fetch-json.js';
export { fetchUrl } from './uri.js';
export { createHostRate, type HostRate } from './host-rate.js';
export { retryDelayMs } from './backoff.js';
export { isPrivateAddress } from './private-address.js';
export { createMetadataMetrics, type MetadataMetrics } from './metrics.js';
export { METADATA_CONFIG, METADATA_SERVICE, type MetadataConfig } from './config.js';
export { startMetadata } from './start.js';
