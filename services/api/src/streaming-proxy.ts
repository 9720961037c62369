import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '@tonstream/runtime';

/**
 * toncenter serves every public path on one origin: its SDKs take one base URL and call
 * `/api/streaming/v2/sse` and `/ws` beside `/api/v2` and `/api/v3`. The streamer stays a process of
 * its own (it scales apart from the API); the API passes streaming requests through to it untouched,
 * as bytes: SSE responses piped (a client that stops reading stops the streamer's writes, so its
 * slow-client limits see it), WebSocket upgrades spliced onto a socket to the streamer. The client's
 * address goes along in `X-Forwarded-For` (one entry: what the API itself believes) so the streamer's
 * per-address limits count clients, not the API.
 */

export const STREAMING_HTTP_PATHS = ['/api/streaming/v2/sse', '/api/streaming/healthz'];
const WS_PATH = '/api/streaming/v2/ws';

/** Headers that describe one hop and are not passed on (RFC 9110 §7.6.1), plus what the proxy sets itself. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'x-forwarded-for', 'host']);

/**
 * The client's address as the API sees it: the socket's peer, or with `trustedHops` reverse proxies in
 * front (API_TRUST_PROXY), the address that many entries from the right of their X-Forwarded-For.
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustedHops)];
}

function forwardedHeaders(req: IncomingMessage, target: URL, client: string, keep: (name: string) => boolean): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    if (keep(name.toLowerCase())) out.push([name, req.rawHeaders[i + 1]]);
  }
  out.push(['Host', target.host], ['X-Forwarded-For', client]);
  return out;
}

const unavailable = (res: ServerResponse, err: Error) => {
  if (res.headersSent) return void res.destroy();
  res.writeHead(502, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: `streaming unavailable: ${err.message}` }));
};

export type StreamingProxy = {
  /** For the HTTP paths (STREAMING_HTTP_PATHS): SSE subscriptions and health. */
  http(req: IncomingMessage, res: ServerResponse): void;
  /** For the HTTP server's `upgrade` event: takes the streaming WebSocket path, answers 404 to any other. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
};

export function createStreamingProxy(target: URL, trustedHops: number, logger: Logger): StreamingProxy {
  const port = Number(target.port || 80);
  return {
    http(req, res) {
      const headers = forwardedHeaders(req, target, clientAddress(req, trustedHops), (n) => !HOP_HEADERS.has(n));
      const upstream = httpRequest({ host: target.hostname, port, method: req.method, path: req.url, headers: Object.fromEntries(headers) });
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([n]) => !HOP_HEADERS.has(n))));
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', (err) => unavailable(res, err));
      // The client went away (or stopped the stream): so does the streamer's connection.
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    },

    upgrade(req, socket, head) {
      socket.on('error', () => socket.destroy());
      if (new URL(req.url ?? '/', 'http://api').pathname.replace(/\/+$/, '') !== WS_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      // The upgrade's own Connection / Upgrade headers go along: they are the request.
      const headers = forwardedHeaders(req, target, clientAddress(req, trustedHops), (n) => n !== 'host' && n !== 'x-forwarded-for');
      const upstream: Socket = connect(port, target.hostname, () => {
        upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', (err) => {
        logger.warn('streaming websocket: the streamer is unreachable', { err: err.message });
        if (upstream.bytesRead === 0 && socket.writable) {
          const body = JSON.stringify({ error: `streaming unavailable: ${err.message}` });
          socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
        } else socket.destroy();
      });
      upstream.on('close', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
    },
  };
}
