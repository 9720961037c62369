import type { IncomingMessage, ServerResponse } from 'node:http';
import { applySubscription, emptySubscription, parseSubscription, type SubscriptionRequest } from '@tonstream/streaming';
import type { KeyVerifier } from './api-keys.js';
import type { ConnectionCounter } from './connection-count.js';
import { admitConnection, type ConnectionLimits, type LimitDefaults } from './limits.js';
import { openStream, type Stream, type StreamDeps } from './stream-connection.js';

export type SseOptions = StreamDeps & {
  defaults: LimitDefaults;
  keys: KeyVerifier | null;
  counter: ConnectionCounter;
  maxRequestBytes: number;
  /** Open SSE streams (the server's keepalive goes to each) and their responses. */
  streams: Map<Stream, ServerResponse>;
  nextId: () => number;
  /** Notifications framed for SSE, shared by every SSE stream (`createFrameCache(sseFrame)`). */
  frame: (json: string, cursor: string) => Buffer;
};

/** A notification as an SSE event. An empty `id:` line would reset the client's Last-Event-ID: events without a cursor get none. */
export const sseFrame = (body: string, cursor: string) => `${cursor === '' ? '' : `id: ${cursor}\n`}event: event\ndata: ${body}\n\n`;

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

type Body = { kind: 'read'; text: string } | { kind: 'too_large' } | { kind: 'gone' };

/**
 * The body, up to `max` bytes. How long it may take is the server's request timeout, which closes the
 * connection of a client still sending (then 'gone', as for a client that left).
 */
function readBody(req: IncomingMessage, max: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        resolve({ kind: 'too_large' });
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve({ kind: 'read', text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ kind: 'gone' }));
    req.on('close', () => resolve({ kind: 'gone' }));
  });
}

/**
 * `POST …/v2/sse` (reference §4): admit, read and validate the subscription, ack with `event: connected`,
 * replay if asked, then live. Admission (the key, the connection limit) comes before the body: a refused
 * client is answered without being read, and one that is slow to send holds a connection slot meanwhile.
 */
export async function handleSse(req: IncomingMessage, res: ServerResponse, url: URL, o: SseOptions): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return json(res, 400, { error: 'invalid subscription request: Unprocessable Entity' });
  const admission = await admitConnection(req, url, o.defaults, o.keys);
  // Answered before the body is read: the connection is not reused for a next request.
  if (!admission.ok) return json(res, admission.status, { error: admission.error }, { Connection: 'close' });
  const limits = admission.limits;
  const slot = await o.counter.acquire(limits);
  if (!slot.ok) return json(res, 429, { error: `connection limit reached: ${slot.active} active connections` }, { Connection: 'close' });
  // A client gone while its slot was taken is not heard of again (its close event has passed).
  if (req.socket.destroyed) return slot.release();
  let request: SubscriptionRequest | null = null;
  try {
    request = await readSubscription(req, res, o, limits);
  } finally {
    if (request === null || res.destroyed) slot.release();
  }
  if (request !== null && !res.destroyed) openSse(res, o, limits, slot.release, request);
}

/** The subscription of the body; null when the request was answered with a refusal instead, or the client left. */
async function readSubscription(req: IncomingMessage, res: ServerResponse, o: SseOptions, limits: ConnectionLimits): Promise<SubscriptionRequest | null> {
  const refuse = (status: number, body: object, headers?: Record<string, string>) => {
    json(res, status, body, headers);
    return null;
  };
  const tooLarge = () => refuse(413, { error: `invalid subscription request: body larger than ${o.maxRequestBytes} bytes` }, { Connection: 'close' });
  if (Number(req.headers['content-length'] ?? 0) > o.maxRequestBytes) return tooLarge();
  const body = await readBody(req, o.maxRequestBytes);
  if (body.kind === 'gone') return null;
  if (body.kind === 'too_large') return tooLarge();
  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch (err) {
    return refuse(400, { error: `invalid subscription request: ${(err as Error).message}` });
  }
  const lastEventId = req.headers['last-event-id'];
  const parsed = parseSubscription(value, 'sse', limits.maxAddresses < 0 ? o.defaults.maxAddresses : limits.maxAddresses, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
  if (!parsed.ok) return refuse(400, { ...(parsed.id === undefined ? {} : { id: parsed.id }), error: parsed.error });
  const request = parsed.value;
  if (request.resumeFrom) {
    const check = o.fanout.canResume(request.resumeFrom);
    if (!check.ok) return refuse(410, withId(request, { error: check.error }));
  }
  return request;
}

const withId = (request: SubscriptionRequest, body: object) => (request.id === undefined ? body : { id: request.id, ...body });

/** The stream of an admitted, valid subscription, on the connection slot taken for it. */
function openSse(res: ServerResponse, o: SseOptions, limits: ConnectionLimits, release: () => void, request: SubscriptionRequest): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  const stream: Stream = openStream(o, {
    name: 'sse',
    id: o.nextId(),
    limits,
    release,
    write: (chunk, done) => void res.write(chunk, done),
    cork: () => res.cork(),
    uncork: () => res.uncork(),
    unsentBytes: () => res.writableLength,
    frame: o.frame,
    cut(kind, reason) {
      o.streams.delete(stream);
      // A client that stopped reading cannot be told anything: its buffered output is thrown away
      // with the socket. One that reads (revoked key, cursor overtaken) gets the reason first.
      if (kind === 'unsent_bytes' || kind === 'unsent_age') res.destroy();
      else res.end(`event: error\ndata: ${JSON.stringify(withId(request, { error: reason }))}\n\n`);
    },
  });
  res.on('close', () => {
    o.streams.delete(stream);
    stream.close();
  });
  stream.send(`event: connected\ndata: ${JSON.stringify(withId(request, { status: 'subscribed' }))}\n\n`);
  o.streams.set(stream, res);
  o.fanout.setSubscription(stream.client, applySubscription(emptySubscription(), request));
  stream.client.floor = request.resumeFrom ?? null;
  stream.startReplay();
}
