import type { IncomingMessage, ServerResponse } from 'node:http';
import { applySubscription, emptySubscription, parseSubscription } from '@tonstream/streaming';
import type { KeyVerifier } from './api-keys.js';
import { admitConnection, type ConnectionCounter, type LimitDefaults } from './limits.js';
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

/** `POST …/v2/sse` (reference §4): validate, admit, ack with `event: connected`, replay if asked, then live. */
export async function handleSse(req: IncomingMessage, res: ServerResponse, url: URL, o: SseOptions): Promise<void> {
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
  const admission = await admitConnection(req, url, o.defaults, o.keys);
  if (!admission.ok) return json(res, admission.status, { error: admission.error });
  const limits = admission.limits;
  const lastEventId = req.headers['last-event-id'];
  const parsed = parseSubscription(value, 'sse', limits.maxAddresses < 0 ? o.defaults.maxAddresses : limits.maxAddresses, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
  if (!parsed.ok) return json(res, 400, { ...(parsed.id === undefined ? {} : { id: parsed.id }), error: parsed.error });
  const request = parsed.value;
  const withId = (body: object) => (request.id === undefined ? body : { id: request.id, ...body });
  if (request.resumeFrom) {
    const check = o.fanout.canResume(request.resumeFrom);
    if (!check.ok) return json(res, 410, withId({ error: check.error }));
  }
  if (res.destroyed) return;
  const slot = o.counter.acquire(limits);
  if (!slot.ok) return json(res, 429, withId({ error: `connection limit reached: ${slot.active} active connections` }));

  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  const stream: Stream = openStream(o, {
    name: 'sse',
    id: o.nextId(),
    limits,
    release: slot.release,
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
      else res.end(`event: error\ndata: ${JSON.stringify(withId({ error: reason }))}\n\n`);
    },
  });
  res.on('close', () => {
    o.streams.delete(stream);
    stream.close();
  });
  stream.send(`event: connected\ndata: ${JSON.stringify(withId({ status: 'subscribed' }))}\n\n`);
  o.streams.set(stream, res);
  o.fanout.setSubscription(stream.client, applySubscription(emptySubscription(), request));
  stream.client.floor = request.resumeFrom ?? null;
  stream.startReplay();
}
