import { createRegistry } from '@tonstream/runtime';
import { createStreamerMetrics } from '../../services/streamer/src/metrics.js';
import type { ServerOptions } from '../../services/streamer/src/server.js';

/**
 * Options of an in-process streaming server for a test: the streamer's defaults where a suite does not
 * care (no keys, no connection limits, 1 MiB requests, 4 MiB unsent, 10 s unsent age), a fresh metrics
 * registry, always healthy; the suite gives its fan-out, logger and whatever it tests.
 */
export function testStreamerOptions(o: Pick<ServerOptions, 'fanout' | 'logger'> & Partial<ServerOptions>): ServerOptions {
  return {
    metrics: createStreamerMetrics(createRegistry('streamer-test')),
    health: () => ({ ok: true }),
    keepaliveMs: 15_000,
    maxAddresses: 10_000,
    maxRequestBytes: 1024 * 1024,
    maxBufferedBytes: 4 * 1024 * 1024,
    maxUnsentMs: 10_000,
    maxConnectionsPerKey: -1,
    maxConnectionsAnonymous: -1,
    trustGatewayHeaders: false,
    keys: null,
    keyRecheckMs: 30_000,
    ...o,
  };
}
