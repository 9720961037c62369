import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@tonstream/runtime';
import { applySubscription, emptySubscription, parseSubscription, type Client, type Fanout } from '@tonstream/streaming';
import { WebSocketServer } from 'ws';
import { connectionLimits, createConnectionCounter } from './limits.js';
import type { StreamerMetrics } from './metrics.js';
import { handleWebSocket } from './ws.js';

/** Route names: toncenter's `/api/streaming/v2/*` and TonAPI's `/streaming/v2/*` (reference §1). */
const SSE_PATHS = new Set(['/api/streaming/v2/sse', '/streaming/v2/sse']);
const WS_PATHS = new Set(['/api/streaming/v2/ws', '/streaming/v2/ws']);
const HEALTH_PATHS = new Set(['/api/streaming/healthz', '/streaming/healthz']);

export type ServerOptions = {
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  health: () => { ok: boolean; [k: string]: unknown };
  keepaliveMs: number;
  maxAddresses: number;
  maxRequestBytes: number;
  maxBufferedBytes: number;
  maxConnectionsPerKey: number;
};

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        resolve(null);
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The streaming HTTP server: SSE, WebSocket upgrades and health on one port. */
export function createStreamingServer(o: ServerOptions): Server & { closeStreams(): void } {
  const counter = createConnectionCounter();
  const sse = new Set<{ res: ServerResponse }>();
  let nextId = 1;
  const defaults = { maxConnections: o.maxConnectionsPerKey, maxAddresses: o.maxAddresses };
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxRequestBytes });

  const keepalive = setInterval(() => {
    for (const c of sse) c.res.write(': keepalive\n\n');
  }, o.keepaliveMs);
  keepalive.unref();

  async function handleSse(req: IncomingMessage, res: ServerResponse, url: URL) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') return json(res, 400, { error: 'invalid subscription request: Unprocessable Entity' });
    const text = await readBody(req, o.maxRequestBytes);
    if (text === null) return json(res, 413, { error: `invalid subscription request: body larger than ${o.maxRequestBytes} bytes` }, { Connection: 'close' });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return json(res, 400, { error: `invalid subscription request: ${(err as Error).message}` });
    }
    const limits = connectionLimits(req, url, defaults);
    const lastEventId = req.headers['last-event-id'];
    const parsed = parseSubscription(value, 'sse', limits.maxAddresses < 0 ? o.maxAddresses : limits.maxAddresses, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
    if (!parsed.ok) return json(res, 400, { ...(parsed.id === undefined ? {} : { id: parsed.id }), error: parsed.error });
    const req2 = parsed.value;
    if (req2.resumeFrom) {
      const check = o.fanout.canResume(req2.resumeFrom);
      if (!check.ok) return json(res, 410, { ...(req2.id === undefined ? {} : { id: req2.id }), error: check.error });
    }
    const slot = counter.acquire(limits);
    if (!slot.ok) return json(res, 429, { ...(req2.id === undefined ? {} : { id: req2.id }), error: `connection limit reached: ${slot.active} active connections` });

    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const entry = { res };
    let closed = false;
    const client: Client = {
      id: nextId++,
      sub: emptySubscription(),
      floor: null,
      deliver(body, cursor) {
        if (closed) return;
        res.write(`id: ${cursor}\nevent: event\ndata: ${body}\n\n`);
        o.metrics.delivered.inc({ transport: 'sse' });
        if (res.writableLength > o.maxBufferedBytes) drop(`slow consumer: more than ${o.maxBufferedBytes} bytes unsent`);
      },
    };
    const close = () => {
      if (closed) return;
      closed = true;
      sse.delete(entry);
      o.fanout.remove(client);
      slot.release();
      o.metrics.connections.dec({ transport: 'sse' });
    };
    // A client that stops reading cannot be told anything: it is cut off and the reason logged.
    const drop = (reason: string) => {
      o.logger.warn('client dropped', { transport: 'sse', client: client.id, reason });
      o.metrics.dropped.inc({ reason: 'slow' });
      close();
      res.destroy();
    };
    res.on('close', close);
    o.metrics.connections.inc({ transport: 'sse' });
    res.write(`event: connected\ndata: ${JSON.stringify({ ...(req2.id === undefined ? {} : { id: req2.id }), status: 'subscribed' })}\n\n`);
    sse.add(entry);
    o.fanout.add(client);
    o.fanout.setSubscription(client, applySubscription(emptySubscription(), req2));
    client.floor = req2.resumeFrom ?? null;
    o.fanout.replay(client);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://streamer');
    const path = url.pathname.replace(/\/+$/, '');
    if (SSE_PATHS.has(path)) {
      if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed: subscribe with POST and a JSON body' }, { Allow: 'POST' });
      handleSse(req, res, url).catch((err: unknown) => {
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
  server.headersTimeout = 10_000;
  server.requestTimeout = 0;

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://streamer');
    if (!WS_PATHS.has(url.pathname.replace(/\/+$/, ''))) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    wss.handleUpgrade(req, socket, head, (ws) => handleWebSocket(ws, req, { ...o, limits: connectionLimits(req, url, defaults), counter, id: nextId++ }));
  });

  return Object.assign(server, {
    closeStreams() {
      clearInterval(keepalive);
      for (const c of sse) c.res.destroy();
      for (const ws of wss.clients) ws.terminate();
    },
  });
}
