export { createWriter, WRITER_GROUP_ID, type Writer, type WriterDeps } from './writer.js';
export { createWriterMetrics, type WriterMetrics } from './metrics.js';
export { WRITER_CONFIG, WRITER_SERVICE, type WriterConfig } from './config.js';
export { startWriter } from './start.js';
export { createSink, type Sink, type SinkOptions } from './sink.js';
export { DEFAULT_RETRY, backoffMs, retryWhileRetriable, type RetryPolicy } from './retry.js';
