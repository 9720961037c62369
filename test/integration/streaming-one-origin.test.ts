/**
 * One origin, as toncenter.com (issue 24, item 12): the API passes /api/streaming/v2/sse, /ws and
 * /api/streaming/healthz on to the streamer, so a client given the API's base URL streams. Both run in
 * this process on real sockets: the streaming server over a fan-out fed by the test (it knows exactly
 * what was emitted), the API app with its streaming proxy in front of it. Through the API a client
 * gets what a client of the streamer gets (events, refusals, health), the streamer's per-address
 * limits count the clients and not the API, and a client that stops reading is still cut by the
 * streamer's slow-client bound.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import type { AccountStateRecord } from '@tonstream/records';
import { createStore } from '@tonstream/store';
import { type BlockEvent, createFanout } from '@tonstream/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStreamerOptions } from './streamer-options.js';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { createStreamingProxy } from '../../services/api/src/streaming-proxy.js';
import { createStreamingServer } from '../../services/streamer/src/server.js';
import { eventually } from '../support/processes.js';
import { sseClient, wsClient } from './streaming-clients.js';

const A = `0:${'B2'.repeat(32)}`;
const logs: Record<string, unknown>[] = [];
const logger = createLogger({ level: 'info', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
const fanout = createFanout({ retainMcBlocks: 10_000, retainMaxBytes: 256 * 1024 * 1024 });
let mc = 0;
function emitBlock(events: number, balanceDigits = 20) {
  mc += 1;
  const list: BlockEvent[] = Array.from({ length: events }, (_, i) => {
    const lt = `${mc}${String(i).padStart(5, '0')}`;
    const state = { account: A, account_state_hash: Buffer.alloc(32, mc % 256).toString('base64'), balance: `${lt}${'7'.repeat(balanceDigits)}`, extra_currencies: {}, status: 'active', frozen_hash: null, code_hash: null, data_hash: null, code_boc: null, data_boc: null, last_trans_lt: lt, last_trans_hash: 'x', mc_block_seqno: mc, gen_utime: 1 } as AccountStateRecord;
    return { type: 'account_state_change', account: A, state };
  });
  fanout.emit('confirmed', mc, list);
}

const MAX_BUFFERED_BYTES = 256 * 1024;
/** Connections per client address; the first test opens this many from 127.0.0.1 (two direct, two through the API). */
const ANONYMOUS_LIMIT = 4;
const streamer = createStreamingServer(
  testStreamerOptions({ fanout, logger, maxBufferedBytes: MAX_BUFFERED_BYTES, maxUnsentMs: 600_000, maxConnectionsAnonymous: ANONYMOUS_LIMIT, trustedProxies: ['127.0.0.1', '::1'] }),
);
const store = createStore({ url: process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123', database: 'tonstream_one_origin_unused' });
let api: ReturnType<typeof createApiServer>;
let direct = '';
let viaApi = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => streamer.listen(0, '127.0.0.1', resolve));
  direct = `http://127.0.0.1:${(streamer.address() as AddressInfo).port}`;
  const proxy = createStreamingProxy(new URL(direct), 0, logger);
  api = createApiServer(createApp({ store, registry: createRegistry('api-one-origin'), logger, streaming: proxy, checkResponses: 'reject' }));
  api.on('upgrade', proxy.upgrade);
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  viaApi = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  streamer.closeStreams();
  api.closeAllConnections();
  await new Promise((r) => api.close(r));
  await new Promise((r) => streamer.close(r));
  await store.close();
});

const sub = { types: ['account_state_change'], addresses: [A], min_finality: 'confirmed' };
const dropsOf = (kind: string) => logs.filter((l) => l.msg === 'client dropped' && l.kind === kind);

type Opened = { status: number; body: string; close(): void; pause(): void; resume(): void; ended: Promise<void> };

/**
 * An SSE subscription opened from a chosen local address (127.0.0.x: another client to the server),
 * resolved once the ack (or a refusal) is in.
 */
function sseFrom(base: string, localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/streaming/v2/sse`, { method: 'POST', localAddress, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let body = '';
      const ended = new Promise<void>((r) => res.once('close', () => r()));
      const opened = () => ({ status: res.statusCode ?? 0, body, close: () => req.destroy(), pause: () => res.pause(), resume: () => res.resume(), ended });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (res.statusCode === 200 && body.includes('event: connected')) resolve(opened());
      });
      res.on('end', () => resolve(opened()));
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(JSON.stringify(sub));
  });
}

describe('streaming on the API\'s origin', () => {
  it('SSE and WebSocket through the API deliver what the streamer sends its own clients', async () => {
    const sse = [sseClient(`${direct}/api/streaming/v2/sse`, sub), sseClient(`${viaApi}/api/streaming/v2/sse`, sub)];
    const ws = [await wsClient(`${direct.replace('http', 'ws')}/api/streaming/v2/ws`), await wsClient(`${viaApi.replace('http', 'ws')}/api/streaming/v2/ws`)];
    for (const c of ws) expect(await c.request({ operation: 'subscribe', ...sub, id: 's' })).toEqual({ id: 's', status: 'subscribed' });
    await eventually('both SSE clients connected', async () => (sse.every((c) => c.connected()) ? true : undefined), 10_000, 50);
    for (let i = 0; i < 5; i++) emitBlock(3);
    const events = (frames: { event?: string; data: Record<string, unknown> }[]) => frames.filter((f) => f.event !== 'connected').map((f) => f.data);
    await eventually('15 events at every client', async () => (sse.every((c) => events(c.frames).length >= 15) && ws.every((c) => c.messages.filter((m) => m.type).length >= 15) ? true : undefined), 10_000, 50);
    expect(events(sse[1].frames)).toEqual(events(sse[0].frames));
    expect(sse[1].frames.map((f) => f.id)).toEqual(sse[0].frames.map((f) => f.id));
    expect(ws[1].messages).toEqual(ws[0].messages);
    expect(events(sse[0].frames).length).toBe(15);
    for (const c of sse) c.close();
    for (const c of ws) c.close();
  });

  it('refusals and health are the streamer\'s own: status and body', async () => {
    for (const body of ['{', JSON.stringify({ types: ['no_such_type'], addresses: [A] }), JSON.stringify({ types: ['transactions'] })]) {
      const answers = await Promise.all([direct, viaApi].map(async (base) => {
        const res = await fetch(`${base}/api/streaming/v2/sse`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
        return { status: res.status, body: await res.text() };
      }));
      expect(answers[0].status).toBeGreaterThanOrEqual(400);
      expect(answers[0].status).toBeLessThan(500);
      expect(answers[1]).toEqual(answers[0]);
    }
    const get = await Promise.all([direct, viaApi].map(async (base) => (await fetch(`${base}/api/streaming/v2/sse`)).status));
    expect(get).toEqual([405, 405]);
    const health = await Promise.all([direct, viaApi].map(async (base) => {
      const res = await fetch(`${base}/api/streaming/healthz`);
      return { status: res.status, ok: ((await res.json()) as { ok: boolean }).ok };
    }));
    expect(health).toEqual([{ status: 200, ok: true }, { status: 200, ok: true }]);
  });

  it('the streamer\'s per-address limit counts the clients behind the API, not the API', async () => {
    const first: Opened[] = [];
    for (let i = 0; i < ANONYMOUS_LIMIT; i++) first.push(await sseFrom(viaApi, '127.0.0.5'));
    expect(first.map((c) => c.status)).toEqual(Array(ANONYMOUS_LIMIT).fill(200));
    // One more from the same client is over the anonymous limit (the streamer's words) ...
    const over = await sseFrom(viaApi, '127.0.0.5');
    expect(over.status).toBe(429);
    expect(over.body).toContain('connection limit reached');
    // ... while another client, through the same API, is not.
    const other = await sseFrom(viaApi, '127.0.0.6');
    expect(other.status).toBe(200);
    for (const c of [...first, other]) c.close();
    // The slots come back when the clients go.
    await eventually('a slot free again', async () => {
      const again = await sseFrom(viaApi, '127.0.0.5');
      again.close();
      return again.status === 200 ? true : undefined;
    }, 10_000, 100);
  });

  it('a client that stops reading through the API is still cut by the streamer\'s unsent-bytes bound', async () => {
    const before = dropsOf('unsent_bytes').length;
    const stalled = await sseFrom(viaApi, '127.0.0.7');
    expect(stalled.status).toBe(200);
    stalled.pause(); // the ack, then nothing
    // Many times the bound plus what the sockets and the API's buffers hold between them.
    let emitted = 0;
    await eventually('the stalled client is dropped', async () => {
      if (dropsOf('unsent_bytes').length > before) return true;
      // ~1.6 MB a step: the kernel buffers on both sides of the API hold megabytes before the streamer's fill.
      emitBlock(1_000, 1_000);
      emitted += 1_000 * 1_000;
      return undefined;
    }, 60_000, 20);
    expect(dropsOf('unsent_bytes')[before]).toMatchObject({ transport: 'sse', reason: `slow consumer: more than ${MAX_BUFFERED_BYTES} bytes unsent` });
    expect(emitted).toBeGreaterThan(MAX_BUFFERED_BYTES);
    // The API passes the end on: reading again drains what was in flight, then the stream ends.
    stalled.resume();
    await stalled.ended;
  }, 90_000);
});
