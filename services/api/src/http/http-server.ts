import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type express from 'express';

/**
 * Largest request head (request line and headers) the server reads. Every request the OpenAPI
 * document allows must fit when its values are ASCII: /addressBook takes 1024 strings of 256
 * characters, about 270 KB of query. Node's default (16 KiB) refuses about 210 raw addresses.
 */
export const MAX_REQUEST_HEAD_BYTES = 512 * 1024;

/** How long a refused client may go on sending before its socket is closed. */
const REFUSED_CLIENT_DRAIN_MS = 5_000;

/**
 * Against slow senders (slowloris): a request head must arrive within HEADERS_TIMEOUT_MS and the whole
 * request (head and body) within REQUEST_TIMEOUT_MS, checked every CHECK_INTERVAL_MS. Node's defaults
 * (60 s, 300 s, checked every 30 s) let a few thousand trickling sockets hold the server's descriptors.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1_000;

export type ApiServerOptions = {
  /** Time to receive a request head; default HEADERS_TIMEOUT_MS (10 s). */
  headersTimeoutMs?: number;
  /** Time to receive a whole request; default REQUEST_TIMEOUT_MS (30 s). */
  requestTimeoutMs?: number;
};

function plainAnswer(status: number, reason: string, error: string): string {
  const body = JSON.stringify({ error });
  return `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The answer to a request the HTTP parser gave up on (the app never sees it), by Node's error code. */
function refusal(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return plainAnswer(431, 'Request Header Fields Too Large', `request head over ${MAX_REQUEST_HEAD_BYTES} bytes: send fewer or shorter parameters`);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return plainAnswer(408, 'Request Timeout', 'request timeout');
  return plainAnswer(400, 'Bad Request', `malformed HTTP request (${code ?? 'unknown error'})`);
}

/**
 * The API's HTTP server: request heads up to MAX_REQUEST_HEAD_BYTES, slow senders cut with a 408, and requests the parser refuses
 * answered as `{"error": …}`. Node's own answer closes the socket with the rest of the request
 * unread, which makes the kernel send a reset that can reach the client before the 431.
 */
export function createApiServer(app: express.Express, options: ApiServerOptions = {}): Server {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout);
  const connectionsCheckingInterval = Math.min(CHECK_INTERVAL_MS, headersTimeout);
  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEAD_BYTES, requestTimeout, headersTimeout, connectionsCheckingInterval, ...expressClasses(app) }, app);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.on('data', () => {}); // read and drop what the client still sends
    socket.end(refusal(err.code));
    setTimeout(() => socket.destroy(), REFUSED_CLIENT_DRAIN_MS).unref();
  });
  return server;
}

/**
 * Request and response classes born with the app's prototypes. Express gives every request and response
 * its own prototype as it enters (`Object.setPrototypeOf`), which turns them into objects V8 no longer
 * optimizes: every property Node's HTTP code then touches is a slow lookup (an app answering one small
 * JSON ran at 7,900 rps here against Node's own 53,000). Created with that prototype, the objects keep
 * it: express's call changes nothing (18,900 rps).
 */
function expressClasses(app: express.Express): { IncomingMessage: typeof IncomingMessage; ServerResponse: typeof ServerResponse } {
  return { IncomingMessage: withPrototype(IncomingMessage, app.request), ServerResponse: withPrototype(ServerResponse, app.response) };
}

/** A constructor that builds what `base` builds (Node's classes are plain functions), on `prototype`. */
function withPrototype<C extends typeof IncomingMessage | typeof ServerResponse>(base: C, prototype: object): C {
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  function Born(this: object, ...args: unknown[]) {
    init.apply(this, args);
  }
  Born.prototype = prototype;
  return Born as unknown as C;
}
