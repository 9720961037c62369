import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@tonstream/runtime';
import type { Fanout } from '@tonstream/streaming';
import { WebSocketServer } from 'ws';
import type { KeyVerifier } from './api-keys.js';
import { createRevocationWatch } from './key-revocation.js';
import { type ConnectionCounter, createConnectionCounter, type Slot } from './connection-count.js';
import { admitConnection, type ConnectionLimits, type LimitDefaults } from './limits.js';
import type { StreamerMetrics } from './metrics.js';
import { createFrameCache } from './frame-cache.js';
import { createSlowClientGuard } from './slow-clients.js';
import { handleSse, json, sseFrame } from './sse.js';
import type { Stream, StreamDeps } from './stream-connection.js';
import { handleWebSocket } from './ws.js';

/** Route names: toncenter's `/api/streaming/v2/*` and TonAPI's `/streaming/v2/*` (reference §1). */
const SSE_PATHS = new Set(['/api/streaming/v2/sse', '/streaming/v2/sse']);
const WS_PATHS = new Set(['/api/streaming/v2/ws', '/streaming/v2/ws']);
const HEALTH_PATHS = new Set(['/api/streaming/healthz', '/streaming/healthz']);

export type ServerOptions = LimitDefaults & {
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  health: () => { ok: boolean; [k: string]: unknown };
  keepaliveMs: number;
  maxRequestBytes: number;
  maxBufferedBytes: number;
  /** A client whose oldest unsent data is older than this is dropped. */
  maxUnsentMs: number;
  /** The API's key store; null: keys are not checked (every connection counts as anonymous). */
  keys: KeyVerifier | null;
  /** How often keys with open connections are looked up again (revoked: cut). */
  keyRecheckMs: number;
  /** Where open connections are counted against their limits. @default createConnectionCounter() (this process) */
  counter?: ConnectionCounter;
  /** A request's head and body (an SSE subscription) must arrive within this; the stream after it is not bounded. @default REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
};

/**
 * Bounds on receiving a request, so a client sending slowly (slowloris) cannot hold a connection:
 * its head within HEADERS_TIMEOUT_MS, head and body within REQUEST_TIMEOUT_MS (the default 1 MiB
 * STREAMER_MAX_REQUEST_BYTES at 35 KB/s). Node checks them every CHECK_INTERVAL_MS and answers 408;
 * a response (an SSE stream) is never cut by them.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1_000;

/** The streaming HTTP server: SSE, WebSocket upgrades and health on one port. */
export function createStreamingServer(o: ServerOptions): Server & { closeStreams(): void } {
  const counter = o.counter ?? createConnectionCounter();
  const streams = new Map<Stream, ServerResponse>();
  let lastId = 0;
  const nextId = () => ++lastId;
  const defaults: LimitDefaults = { maxAddresses: o.maxAddresses, maxConnectionsPerKey: o.maxConnectionsPerKey, maxConnectionsAnonymous: o.maxConnectionsAnonymous, trustGatewayHeaders: o.trustGatewayHeaders, trustedProxies: o.trustedProxies };
  const guard = createSlowClientGuard({ maxUnsentMs: o.maxUnsentMs });
  const revocations = o.keys ? createRevocationWatch(o.keys, o.keyRecheckMs) : null;
  const deps: StreamDeps = { fanout: o.fanout, logger: o.logger, metrics: o.metrics, guard, revocations, maxBufferedBytes: o.maxBufferedBytes };
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxRequestBytes });
  const sseFrames = createFrameCache(sseFrame);
  const wsFrames = createFrameCache((body) => body);

  const keepalive = setInterval(() => {
    for (const s of streams.keys()) s.send(': keepalive\n\n');
  }, o.keepaliveMs);
  keepalive.unref();

  const requestTimeout = o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const timeouts = { requestTimeout, headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout), connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, requestTimeout) };
  const server = createServer(timeouts, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://streamer');
    const path = url.pathname.replace(/\/+$/, '');
    if (SSE_PATHS.has(path)) {
      if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed: subscribe with POST and a JSON body' }, { Allow: 'POST' });
      handleSse(req, res, url, { ...deps, defaults, keys: o.keys, counter, maxRequestBytes: o.maxRequestBytes, streams, nextId, frame: sseFrames }).catch((err: unknown) => {
        o.logger.error('sse request failed', { err });
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
        else res.destroy();
      });
      return;
    }
    if (WS_PATHS.has(path)) return json(res, 426, { error: 'Upgrade Required' }, { Upgrade: 'websocket' });
    if (HEALTH_PATHS.has(path)) {
      const h = o.health();
      return json(res, h.ok ? 200 : 503, { ok: h.ok, now: Math.floor(Date.now() / 1000), components: { streamer: h } });
    }
    json(res, 404, { error: 'not found' });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://streamer');
    if (!WS_PATHS.has(url.pathname.replace(/\/+$/, ''))) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    const upgrade = async () => {
      const admission = await admitConnection(req, url, defaults, o.keys);
      // The slot is taken before the upgrade: messages that follow it find the connection ready.
      const admitted: { limits: ConnectionLimits; slot: Slot } | { error: string } = admission.ok ? { limits: admission.limits, slot: await counter.acquire(admission.limits) } : { error: admission.error };
      if (socket.destroyed) {
        if ('slot' in admitted && admitted.slot.ok) admitted.slot.release();
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        if ('slot' in admitted) return handleWebSocket(ws, req, { ...deps, socket, ...admitted, id: nextId(), frame: wsFrames });
        // Browsers cannot read a refused upgrade's status: the refusal comes as a frame, as the connection limit's does.
        ws.send(JSON.stringify({ error: admitted.error }), () => ws.terminate());
      });
    };
    upgrade().catch((err: unknown) => {
      o.logger.error('websocket upgrade failed', { err });
      socket.destroy();
    });
  });

  return Object.assign(server, {
    closeStreams() {
      clearInterval(keepalive);
      guard.stop();
      revocations?.stop();
      for (const res of streams.values()) res.destroy();
      for (const ws of wss.clients) ws.terminate();
    },
  });
}
