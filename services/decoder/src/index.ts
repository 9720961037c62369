export { createDecoder, DECODER_GROUP_ID, type Decoder, type DecoderDeps } from './decoder.js';
export { decodeMessage, errorKind, type DecodedBlock, type DecodeErrorKind, type DecodeOutcome, type OutRecord } from './decode-message.js';
export { createDecoderMetrics, type DecoderMetrics } from './metrics.js';
export { DECODER_CONFIG, type DecoderConfig } from './config.js';
export { reindex, replayProgress, type ReindexDeps, type ReindexProgress, type ReplayTarget } from './reindex.js';
