export { topicNames, topicSpecs, MAX_MESSAGE_BYTES, type Topics, type TopicSpec } from './topics.js';
export { encodeRawBlock, decodeRawBlock, blockKey, CodecError, type RawBlock, type RawAccountState } from './raw-block.js';
export { createKafka, ensureTopics, TopicConfigError, CONSUMER_FETCH, type KafkaOptions, type BusLogger } from './kafka.js';
export { fetchConsumerLag, pollConsumerLag, type PartitionLag, type LagPollerOptions } from './lag.js';
export { murmur2, partitionForKey } from './partition.js';
export { deadLetterChunks, TRUNCATED_FROM_HEADER } from './dead-letter.js';
export { bundleByPartition, bundleLines, type Bundle, type KeyedRecord } from './record-bundle.js';
export { type ConsumedMessage, type DecodedMessage, type DecodedTopic, readDecodedMessage } from './decoded-message.js';
export { pendingExternal, decodePendingExternal, publishPendingExternal, PendingExternalError, type PendingExternal } from './pending-external.js';
