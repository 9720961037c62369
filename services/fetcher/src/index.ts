export { createFetcher, DEFAULT_FETCHER_CONFIG, type Fetcher, type FetcherConfig, type FetcherDeps, type FetcherStatus } from './fetcher.js';
export { openFetcher, type OpenedFetcher } from './wire.js';
export { loadFetcherConfig, type FetcherServiceConfig } from './config.js';
export { createFetcherMetrics, type FetcherMetrics } from './metrics.js';
export { connectLiteservers, createLiteApi, type LiteApi, type ChainHead, VerifyError } from './lite-api.js';
export { openKafkaBus, type BlockBus } from './kafka-bus.js';
export { walkNewShardBlocks, committedBefore, shardIsAncestor, type FullBlockId } from './shard-walk.js';
export { checkpointKey, CheckpointMismatchError, decodeCheckpoint, encodeCheckpoint, type Checkpoint } from './checkpoint.js';
export { isStateGoneAnswer, STATE_GONE } from './block-loader.js';
