export { createDecoder, DECODER_GROUP_ID, type Decoder, type DecoderDeps } from './decoder.js';
export { decodeMessage, errorKind, type DecodedBlock, type DecodeErrorKind, type DecodeOutcome, type OutRecord } from './decode-message.js';
export { createDecoderMetrics, type DecoderMetrics } from './metrics.js';
export { DECODER_CONFIG, DECODER_SERVICE, type DecoderConfig } from './config.js';
export { startDecoder } from './start.js';
export { reindex, replayProgress, type ReindexDeps, type ReindexProgress, type ReplayTarget } from './reindex.js';
export { tokenEventsOfBlock } from './token-events.js';
