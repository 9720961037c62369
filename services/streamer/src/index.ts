export { createStreamingServer, type ServerOptions } from './server.js';
export { createSource, type Source, type SourceOptions } from './source.js';
export { admitConnection, requestApiKey, type ConnectionLimits, type LimitDefaults } from './limits.js';
export { createConnectionCounter, createSharedConnectionCounter, type ConnectionCounter, type SharedSlots } from './connection-count.js';
export { connectRedisSlots, redisSlots, slotsKey } from './redis-slots.js';
export { connectKeyVerifier, type KeyVerifier } from './api-keys.js';
export { STREAMER_CONFIG, STREAMER_SERVICE, type StreamerConfig } from './config.js';
export { startStreamer } from './start.js';
