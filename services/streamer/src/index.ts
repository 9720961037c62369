export { createStreamingServer, type ServerOptions } from './server.js';
export { createSource, type Source, type SourceOptions } from './source.js';
export { connectionLimits, createConnectionCounter, type ConnectionLimits } from './limits.js';
export { STREAMER_CONFIG, type StreamerConfig } from './config.js';
