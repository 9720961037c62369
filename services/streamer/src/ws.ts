import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { applySubscription, parseEnvelope, parseSubscription, parseUnsubscribe } from '@tonstream/streaming';
import type { RawData, WebSocket } from 'ws';
import type { Slot } from './connection-count.js';
import type { ConnectionLimits } from './limits.js';
import type { DropKind } from './slow-clients.js';
import { openStream, type StreamDeps } from './stream-connection.js';

export type WsOptions = StreamDeps & {
  /** The upgraded TCP socket under `ws` (corked around a run of notifications). */
  socket: Duplex;
  limits: ConnectionLimits;
  /** Taken before the upgrade (a refusal is answered on the WebSocket, as toncenter does). */
  slot: Slot;
  id: number;
  /** Notifications encoded once for every WebSocket stream (`createFrameCache`). */
  frame: (json: string, cursor: string) => Buffer;
};

/**
 * Close codes (private-use range: toncenter sends none, §5, so only clients that look get them):
 * 4008 the client did not read its data, 4010 its resume cursor left the window mid-replay, 4001
 * its API key was revoked.
 */
const CLOSE_CODES: Record<DropKind, number> = { unsent_bytes: 4008, unsent_age: 4008, replay_lost: 4010, key_revoked: 4001 };
/** A dropped client that does not read our close frame either is cut off after this. */
const CLOSE_GRACE_MS = 1_000;
/** Close reasons are limited to 123 bytes by the protocol. */
const CLOSE_REASON_CHARS = 120;

/** One WebSocket connection: `subscribe` / `unsubscribe` / `ping` (reference §5), notifications from the fan-out. */
export function handleWebSocket(ws: WebSocket, req: IncomingMessage, o: WsOptions): void {
  const slot = o.slot;
  if (!slot.ok) {
    // As toncenter: one error frame, then the TCP connection drops (no close frame).
    ws.send(JSON.stringify({ error: `connection limit reached: ${slot.active} active connections` }), () => ws.terminate());
    return;
  }
  const header = req.headers['x-actions-version'];
  const stream = openStream(o, {
    name: 'ws',
    id: o.id,
    limits: o.limits,
    release: slot.release,
    supportedActionTypes: typeof header === 'string' && header !== '' ? [header] : ['latest'],
    write: (data, done) => ws.send(data, { binary: false }, done),
    cork: () => o.socket.cork(),
    uncork: () => o.socket.uncork(),
    unsentBytes: () => ws.bufferedAmount,
    frame: o.frame,
    cut(kind, reason) {
      // A client still reading (revoked key, cursor overtaken) also gets the reason as an error reply.
      if (kind === 'replay_lost' || kind === 'key_revoked') ws.send(JSON.stringify({ error: reason }));
      ws.close(CLOSE_CODES[kind], reason.slice(0, CLOSE_REASON_CHARS));
      setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    },
  });
  const client = stream.client;
  const reply = (body: object) => stream.send(JSON.stringify(body));

  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (!stream.isOpen()) return;
    if (isBinary) return reply({ error: 'invalid request envelope: binary frames are not supported, send JSON text' });
    const env = parseEnvelope(rawText(data));
    if (!env.ok) return reply({ error: env.error });
    const { operation, id, body } = env.value;
    const withId = (x: object) => (id === undefined ? x : { id, ...x });
    if (operation === 'ping') return reply(withId({ status: 'pong' }));
    if (operation === 'unsubscribe') {
      const u = parseUnsubscribe(body);
      if (!u.ok) return reply(withId({ error: u.error }));
      o.fanout.unsubscribe(client, u.value.addresses, u.value.traceHashes);
      return reply(withId({ status: 'unsubscribed' }));
    }
    if (operation === 'subscribe') {
      const s = parseSubscription(body, 'ws', o.limits.maxAddresses);
      if (!s.ok) return reply(withId({ error: s.error }));
      if (s.value.resumeFrom) {
        const check = o.fanout.canResume(s.value.resumeFrom);
        if (!check.ok) return reply(withId({ error: check.error }));
      }
      o.fanout.setSubscription(client, applySubscription(client.sub, s.value));
      client.floor = s.value.resumeFrom ?? null;
      // The ack goes out before anything replayed: clients read the next frame as the ack (§9).
      reply(withId({ status: 'subscribed' }));
      stream.startReplay();
      return;
    }
    reply(withId({ error: `unknown operation: ${operation.slice(0, 100)}` }));
  });
  ws.on('close', () => stream.close());
  ws.on('error', (err) => {
    o.logger.debug('websocket error', { client: client.id, err: err.message });
    stream.close();
  });
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
