import type { IncomingMessage } from 'node:http';
import type { Logger } from '@tonstream/runtime';
import { applySubscription, emptySubscription, parseEnvelope, parseSubscription, parseUnsubscribe, type Client, type Fanout } from '@tonstream/streaming';
import type { RawData, WebSocket } from 'ws';
import type { ConnectionCounter, ConnectionLimits } from './limits.js';
import type { StreamerMetrics } from './metrics.js';

export type WsOptions = {
  fanout: Fanout;
  logger: Logger;
  metrics: StreamerMetrics;
  maxBufferedBytes: number;
  limits: ConnectionLimits;
  counter: ConnectionCounter;
  id: number;
};

/** Close code for a client dropped for not reading (private-use range: toncenter sends none, §5). */
const CLOSE_SLOW_CONSUMER = 4008;
/** A dropped client that does not read our close frame either is cut off after this. */
const CLOSE_GRACE_MS = 1_000;

/** One WebSocket connection: `subscribe` / `unsubscribe` / `ping` (reference §5), notifications from the fan-out. */
export function handleWebSocket(ws: WebSocket, req: IncomingMessage, o: WsOptions): void {
  const slot = o.counter.acquire(o.limits);
  if (!slot.ok) {
    // As toncenter: one error frame, then the TCP connection drops (no close frame).
    ws.send(JSON.stringify({ error: `connection limit reached: ${slot.active} active connections` }), () => ws.terminate());
    return;
  }
  const header = req.headers['x-actions-version'];
  const actionsVersion = typeof header === 'string' && header !== '' ? [header] : ['latest'];
  let closed = false;
  const reply = (body: object) => {
    if (!closed) ws.send(JSON.stringify(body));
  };
  const client: Client = {
    id: o.id,
    sub: emptySubscription(actionsVersion),
    floor: null,
    deliver(body) {
      if (closed) return;
      ws.send(body);
      o.metrics.delivered.inc({ transport: 'ws' });
      if (ws.bufferedAmount > o.maxBufferedBytes) drop(`slow consumer: more than ${o.maxBufferedBytes} bytes unsent`);
    },
  };
  const close = () => {
    if (closed) return;
    closed = true;
    o.fanout.remove(client);
    slot.release();
    o.metrics.connections.dec({ transport: 'ws' });
  };
  const drop = (reason: string) => {
    o.logger.warn('client dropped', { transport: 'ws', client: client.id, reason });
    o.metrics.dropped.inc({ reason: 'slow' });
    close();
    ws.close(CLOSE_SLOW_CONSUMER, reason.slice(0, 120));
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  };
  o.metrics.connections.inc({ transport: 'ws' });
  o.fanout.add(client);

  ws.on('message', (data: RawData, isBinary: boolean) => {
    if (closed) return;
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
      const maxAddresses = o.limits.maxAddresses;
      const s = parseSubscription(body, 'ws', maxAddresses);
      if (!s.ok) return reply(withId({ error: s.error }));
      if (s.value.resumeFrom) {
        const check = o.fanout.canResume(s.value.resumeFrom);
        if (!check.ok) return reply(withId({ error: check.error }));
      }
      o.fanout.setSubscription(client, applySubscription(client.sub, s.value));
      client.floor = s.value.resumeFrom ?? null;
      // The ack goes out before anything replayed: clients read the next frame as the ack (§9).
      reply(withId({ status: 'subscribed' }));
      o.fanout.replay(client);
      return;
    }
    reply(withId({ error: `unknown operation: ${operation.slice(0, 100)}` }));
  });
  ws.on('close', close);
  ws.on('error', (err) => {
    o.logger.debug('websocket error', { client: client.id, err: err.message });
    close();
  });
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
