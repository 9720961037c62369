/**
 * The streamer's HTTP edges against clients that send slowly or should be refused (issue 23 item 8):
 * admission (API key, connection limit) is decided before the SSE body is read, a head or body that
 * trickles in is cut at the request timeout, a body declared larger than the bound is refused unread,
 * and an admitted SSE stream outlives the request timeout. Clients are raw TCP sockets, so the test
 * controls exactly what was sent; keys are checked against the real Redis.
 */
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { createLogger } from '@tonstream/runtime';
import { createFanout } from '@tonstream/streaming';
import { afterAll, describe, expect, it } from 'vitest';
import { testStreamerOptions } from './streamer-options.js';
import { connectKeyVerifier } from '../../services/streamer/src/api-keys.js';
import { createStreamingServer, type ServerOptions } from '../../services/streamer/src/server.js';
import { eventually } from '../support/processes.js';
import { sseClient } from './streaming-clients.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `tonstream-test:streaming-edges:${randomBytes(4).toString('hex')}:`;
const logger = createLogger({ level: 'error' });
const SSE_PATH = '/api/streaming/v2/sse';
const SUBSCRIPTION = JSON.stringify({ types: ['account_state_change'], addresses: [`0:${'A1'.repeat(32)}`], min_finality: 'confirmed' });
/** Long enough for any answer this test waits for on a loaded machine, far below "never". */
const ANSWER_WAIT_MS = 10_000;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function startServer(options: Partial<ServerOptions>): Promise<{ port: number; url: string }> {
  const server = createStreamingServer(testStreamerOptions({ fanout: createFanout({ retainMcBlocks: 100, retainMaxBytes: 2 ** 30 }), logger, maxRequestBytes: 64 * 1024, ...options }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeStreams(), server.closeAllConnections(), server.close(() => resolve()))));
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}` };
}

/** A raw client: what it sends is exactly what the test writes; everything received is kept. */
async function rawClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let closedAt: number | undefined;
  socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (closedAt = Date.now()));
  cleanups.push(async () => socket.destroy());
  return {
    socket,
    received: () => received,
    closedAt: () => closedAt,
    /** Resolves with what was received once it holds a complete HTTP status line. */
    answer: () => eventually('an HTTP answer', async () => (/^HTTP\/1\.1 \d{3} /.test(received) ? received : undefined), ANSWER_WAIT_MS, 20),
  };
}

/** The head of an SSE subscription announcing `bodyBytes` of body, sent alone. */
const sseHead = (bodyBytes: number, headers: Record<string, string> = {}) =>
  [`POST ${SSE_PATH} HTTP/1.1`, 'Host: streamer', 'Content-Type: application/json', `Content-Length: ${bodyBytes}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)![1]);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

describe('admission before the body', () => {
  it('an unknown API key is refused with 401 while its body has not been sent', async () => {
    const keys = connectKeyVerifier({ redisUrl: REDIS_URL, prefix, logger });
    cleanups.push(() => keys.close());
    await eventually('Redis ready', async () => ((await keys.check('0'.repeat(64))) === 'unknown' ? true : undefined), 10_000, 50);
    const s = await startServer({ keys });
    const client = await rawClient(s.port);
    client.socket.write(sseHead(SUBSCRIPTION.length, { 'X-API-Key': 'f'.repeat(64) }));
    const answer = await client.answer();
    expect(statusOf(answer)).toBe(401);
    expect(bodyOf(answer)).toEqual({ error: 'API key does not exist' });
  });

  it('a client over its connection limit is refused with 429 while its body has not been sent; a slow body holds its slot', async () => {
    const s = await startServer({ maxConnectionsAnonymous: 1 });
    // The first connection has sent its head only: it holds the client's one slot meanwhile.
    const slow = await rawClient(s.port);
    slow.socket.write(sseHead(SUBSCRIPTION.length));
    // The slot is taken when the head is handled: retry until the first head was (no sleep as a condition).
    const answer = await eventually(
      'a refusal of the second connection',
      async () => {
        const c = await rawClient(s.port);
        c.socket.write(sseHead(SUBSCRIPTION.length));
        const a = await c.answer();
        return statusOf(a) === 429 ? a : undefined;
      },
      ANSWER_WAIT_MS,
      50,
    );
    expect(bodyOf(answer)).toEqual({ error: 'connection limit reached: 1 active connections' });
    // Once the first sends its body it is subscribed on that slot.
    slow.socket.write(SUBSCRIPTION);
    expect(statusOf(await slow.answer())).toBe(200);
    await eventually('the connected event', async () => (slow.received().includes('event: connected') ? true : undefined), ANSWER_WAIT_MS, 20);
  });

  it('a body declared larger than the bound is refused with 413 without being read', async () => {
    const s = await startServer({ maxRequestBytes: 1024 });
    const client = await rawClient(s.port);
    client.socket.write(sseHead(10 * 1024 * 1024));
    const answer = await client.answer();
    expect(statusOf(answer)).toBe(413);
    expect(bodyOf(answer)).toEqual({ error: 'invalid subscription request: body larger than 1024 bytes' });
    // A client that sends the body anyway still reads the answer (no reset before it).
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${s.url}${SSE_PATH}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(10 * 1024 * 1024) });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ error: 'invalid subscription request: body larger than 1024 bytes' });
    }
  });
});

describe('request timeouts', () => {
  const REQUEST_TIMEOUT_MS = 1_000;

  it('a body trickling in is cut at the request timeout (408), the connection closed', async () => {
    const s = await startServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const client = await rawClient(s.port);
    const startedAt = Date.now();
    client.socket.write(sseHead(SUBSCRIPTION.length));
    let sent = 0;
    // One byte every 100 ms: the whole body would take over 10 s.
    const trickle = setInterval(() => {
      if (client.closedAt() === undefined && sent < SUBSCRIPTION.length) client.socket.write(SUBSCRIPTION[sent++]);
    }, 100);
    try {
      await eventually('the connection closed by the server', async () => (client.closedAt() !== undefined ? true : undefined), ANSWER_WAIT_MS, 20);
    } finally {
      clearInterval(trickle);
    }
    expect(sent).toBeLessThan(SUBSCRIPTION.length);
    expect(statusOf(client.received())).toBe(408);
    // Node checks the bound once a second: the cut comes within a few seconds of it, not when the body ends.
    expect(client.closedAt()! - startedAt).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
  });

  it('a head trickling in is cut at the request timeout', async () => {
    const s = await startServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const client = await rawClient(s.port);
    const head = sseHead(SUBSCRIPTION.length, { 'X-Padding': 'x'.repeat(200) });
    let sent = 0;
    const trickle = setInterval(() => {
      if (client.closedAt() === undefined && sent < head.length) client.socket.write(head[sent++]);
    }, 20);
    try {
      await eventually('the connection closed by the server', async () => (client.closedAt() !== undefined ? true : undefined), ANSWER_WAIT_MS, 20);
    } finally {
      clearInterval(trickle);
    }
    expect(sent).toBeLessThan(head.length);
  });

  it('an admitted SSE stream outlives the request timeout', async () => {
    const s = await startServer({ requestTimeoutMs: REQUEST_TIMEOUT_MS, keepaliveMs: 200 });
    const openedAt = Date.now();
    const client = sseClient(`${s.url}${SSE_PATH}`, JSON.parse(SUBSCRIPTION));
    cleanups.push(async () => client.close());
    // Keepalives keep arriving on the same response long after the request timeout (and Node's check of it).
    await eventually('keepalives for 4 request timeouts', async () => (client.comments.length > 0 && Date.now() - openedAt > 4 * REQUEST_TIMEOUT_MS ? true : undefined), ANSWER_WAIT_MS, 50);
    const before = client.comments.length;
    await eventually('one more keepalive', async () => (client.comments.length > before ? true : undefined), ANSWER_WAIT_MS, 20);
    expect(client.status).toBe(200);
    expect(client.frames[0]).toEqual({ event: 'connected', id: undefined, data: { status: 'subscribed' } });
  });
});
