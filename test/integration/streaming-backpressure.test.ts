/**
 * The streamer's connection handling on real sockets (issue 16): a client that stops reading is cut
 * (by age of its unsent data, or by its size) while a reading client keeps receiving everything; a
 * resume replay far larger than the per-client buffer bound is written in chunks and arrives whole;
 * API keys are checked against the API's key store in the real Redis (unknown and revoked keys
 * refused, open connections of a revoked key cut, per-key and anonymous connection limits). The
 * server runs in this process over a real fan-out fed with account-state events, so the test knows
 * exactly what was emitted; the reader that must keep up with the load reads from a process of its own.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLogger } from '@tonstream/runtime';
import type { AccountStateRecord } from '@tonstream/records';
import { createKeyStore } from '@tonstream/store';
import { type BlockEvent, createFanout, type Fanout } from '@tonstream/streaming';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStreamerOptions } from './streamer-options.js';
import WebSocket from 'ws';
import { connectKeyVerifier, type KeyVerifier } from '../../services/streamer/src/api-keys.js';
import { createStreamingServer, type ServerOptions } from '../../services/streamer/src/server.js';
import { eventually, ROOT } from '../support/processes.js';
import type { ReaderReply } from '../support/stream-reader-process.js';
import { sseClient, wsClient } from './streaming-clients.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
const prefix = `tonstream-test:streaming-keys:${run}:`;
const A = `0:${'A1'.repeat(32)}`;
const logs: Record<string, unknown>[] = [];
const logger = createLogger({ level: 'info', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });

/** One fan-out, fed by the test: blocks of account-state events for address A. */
const fanout: Fanout = createFanout({ retainMcBlocks: 100_000, retainMaxBytes: 2 ** 40 });
let mc = 0;
const emitted: string[] = [];
function emitBlock(events: number, balanceDigits = 200) {
  mc += 1;
  const list: BlockEvent[] = Array.from({ length: events }, (_, i) => {
    const lt = `${mc}${String(i).padStart(5, '0')}`;
    const state = { account: A, account_state_hash: randomBytes(32).toString('base64'), balance: `${lt}${'7'.repeat(balanceDigits)}`, extra_currencies: {}, status: 'active', frozen_hash: null, code_hash: null, data_hash: null, code_boc: null, data_boc: null, last_trans_lt: lt, last_trans_hash: 'x', mc_block_seqno: mc, gen_utime: 1 } as AccountStateRecord;
    return { type: 'account_state_change', account: A, state };
  });
  fanout.emit('confirmed', mc, list);
  for (let i = 0; i < events; i++) emitted.push(`c${mc}.${i}f${0}`);
}
const cursorsSince = (from: number) => emitted.slice(from);

type Started = { url: string; close: () => Promise<void> };
async function startServer(options: Partial<ServerOptions>): Promise<Started> {
  const server = createStreamingServer(testStreamerOptions({ fanout, logger, ...options }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => (server.closeStreams(), server.close(() => resolve()))) };
}

const sub = { types: ['account_state_change'], addresses: [A], min_finality: 'confirmed' };
const dropsOf = (kind: string) => logs.filter((l) => l.msg === 'client dropped' && l.kind === kind);

/** A WebSocket that subscribes, then stops reading its socket (the kernel buffers fill, then the server's). */
async function stalledWs(url: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/api/streaming/v2/ws`);
  let closedAt = 0;
  ws.on('close', () => (closedAt = Date.now()));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ operation: 'subscribe', ...sub, id: 'stall' })));
    ws.once('message', () => resolve());
    ws.once('error', reject);
  });
  const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  socket.pause();
  return { resume: () => socket.resume(), closedAt: () => closedAt };
}

const READER = join(ROOT, 'test/bench/dist/support/stream-reader-process.js');
const readers: ChildProcess[] = [];
afterAll(() => {
  for (const r of readers) r.kill();
});

/**
 * A WebSocket reader in a child process (test/support/stream-reader-process.ts): this process
 * runs the server and produces the load, so a reader here would read only when the load lets it.
 */
async function readerProcess(url: string, subscribe: object) {
  if (!existsSync(READER)) throw new Error(`${READER} is missing: run npx tsc -b first`);
  const child = fork(READER, [url, JSON.stringify(subscribe)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  readers.push(child);
  const ask = <O extends ReaderReply['op']>(op: O) =>
    new Promise<Extract<ReaderReply, { op: O }>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the reader process exited (${code}) before answering ${op}`));
      const onMessage = (m: ReaderReply) => {
        if (m.op !== op) return;
        child.off('message', onMessage).off('exit', onExit);
        resolve(m as Extract<ReaderReply, { op: O }>);
      };
      child.on('message', onMessage).once('exit', onExit);
      child.send({ op });
    });
  const { ack } = await ask('ack');
  return { ack, status: () => ask('status'), cursors: async () => (await ask('cursors')).cursors, close: () => ask('close') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let feeding = true;
/** Emits `perBlock` events every `everyMs` until stopped. */
function feed(perBlock: number, everyMs: number) {
  feeding = true;
  return (async () => {
    while (feeding) {
      emitBlock(perBlock);
      await sleep(everyMs);
    }
  })();
}

describe('slow clients', () => {
  it('a client that stops reading is cut by the age of its unsent data; a reading client gets every event', async () => {
    // The byte bound far away: only the age rule can cut the stalled client here.
    const s = await startServer({ maxUnsentMs: 1_500, maxBufferedBytes: 256 * 1024 * 1024 });
    const from = emitted.length;
    const reader = await readerProcess(`${s.url.replace('http', 'ws')}/api/streaming/v2/ws`, { operation: 'subscribe', ...sub, id: 'r' });
    expect(reader.ack).toEqual({ id: 'r', status: 'subscribed' });
    const stalled = await stalledWs(s.url);
    const startedAt = Date.now();
    // About 2.4 MB/s to each client (400 events of ~600 bytes every 100 ms).
    const feeding1 = feed(400, 100);
    await eventually('the stalled client is dropped', async () => (dropsOf('unsent_age').length > 0 ? true : undefined), 60_000, 200);
    const droppedAfterMs = Date.now() - startedAt;
    const tenAfter = mc + 10;
    await eventually('ten blocks after the drop', async () => (mc >= tenAfter ? true : undefined), 30_000, 50);
    feeding = false;
    await feeding1;
    const drop = dropsOf('unsent_age')[0];
    expect(drop).toMatchObject({ transport: 'ws', reason: expect.stringMatching(/^slow consumer: data unsent for \d+ ms \(limit 1500 ms\)$/) });
    expect(droppedAfterMs).toBeLessThan(30_000);
    // Its socket is gone: once it reads again it sees the end of the connection.
    stalled.resume();
    await eventually('the stalled socket closed', async () => (stalled.closedAt() > 0 ? true : undefined), 10_000, 100);
    // The reader got every event, in order, including those after the drop.
    const { closed } = await eventually('the reader caught up (or cut)', async () => {
      const status = await reader.status();
      return status.closed !== null || status.received >= emitted.length - from ? status : undefined;
    }, 20_000, 100);
    expect(closed).toBeNull();
    expect(await reader.cursors()).toEqual(cursorsSince(from));
    await reader.close();
    await s.close();
  }, 90_000);

  it('a client over the unsent-bytes bound is cut at once, SSE and WebSocket', async () => {
    const s = await startServer({ maxUnsentMs: 600_000, maxBufferedBytes: 512 * 1024 });
    const before = dropsOf('unsent_bytes').length;
    const ws = await stalledWs(s.url);
    // An SSE client that reads the ack, then nothing.
    const sse = await fetch(`${s.url}/api/streaming/v2/sse`, { method: 'POST', body: JSON.stringify(sub), headers: { 'Content-Type': 'application/json' } });
    expect(sse.status).toBe(200);
    const reader = sse.body!.getReader();
    await reader.read();
    const feeding2 = feed(400, 50);
    await eventually('both are dropped', async () => (dropsOf('unsent_bytes').length >= before + 2 ? true : undefined), 60_000, 200);
    feeding = false;
    await feeding2;
    expect(dropsOf('unsent_bytes').slice(before).map((l) => l.transport).sort()).toEqual(['sse', 'ws']);
    for (const l of dropsOf('unsent_bytes').slice(before)) expect(l.reason).toBe('slow consumer: more than 524288 bytes unsent');
    ws.resume();
    await reader.cancel().catch(() => undefined);
    await s.close();
  }, 90_000);
});

describe('resume replay', () => {
  it('a replay many times the buffer bound arrives whole and in order, SSE and WebSocket, with live events after it', async () => {
    const s = await startServer({ maxBufferedBytes: 256 * 1024, maxUnsentMs: 30_000 });
    emitBlock(1);
    const cursor = emitted.at(-1)!;
    const from = emitted.length;
    // ~6 MB of retained events after the cursor: 24x the bound.
    for (let i = 0; i < 10; i++) emitBlock(1_000);
    const sse = sseClient(`${s.url}/api/streaming/v2/sse`, sub, { 'Last-Event-ID': cursor });
    const ws = await wsClient(`${s.url.replace('http', 'ws')}/api/streaming/v2/ws`);
    expect(await ws.request({ operation: 'subscribe', ...sub, resume_from: cursor, id: 'r' })).toEqual({ id: 'r', status: 'subscribed' });
    // Live blocks keep coming during the replay.
    for (let i = 0; i < 5; i++) {
      emitBlock(200);
      await sleep(30);
    }
    // A last block after the rest: once both have it, anything sent twice before it has arrived too.
    emitBlock(1);
    const want = cursorsSince(from);
    await eventually('both caught up', async () => {
      if (ws.closed) throw new Error(`the resuming WebSocket was closed: ${JSON.stringify(ws.closed)}`);
      return sse.frames.at(-1)?.id === want.at(-1) && ws.notifications().at(-1)?.cursor === want.at(-1) ? true : undefined;
    }, 60_000, 200);
    expect(sse.frames.slice(1).map((f) => f.id)).toEqual(want);
    expect(ws.notifications().map((m) => m.cursor)).toEqual(want);
    expect(ws.closed).toBeNull();
    expect(sse.frames[0]).toEqual({ event: 'connected', data: { status: 'subscribed' } });
    sse.close();
    ws.close();
    await s.close();
  }, 90_000);
});

describe('API keys from the API key store (Redis)', () => {
  let redis: Redis;
  let keys: KeyVerifier;
  let s: Started;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    keys = connectKeyVerifier({ redisUrl: REDIS_URL, prefix, logger });
    s = await startServer({ keys, keyRecheckMs: 300, maxConnectionsPerKey: 2, maxConnectionsAnonymous: 1 });
    await eventually('Redis ready', async () => ((await redis.ping()) === 'PONG' ? true : undefined), 10_000, 100);
  });
  afterAll(async () => {
    await s?.close();
    await keys?.close();
    for (const k of await redis.keys(`${prefix}*`)) await redis.del(k);
    await redis.quit();
  });

  const post = (headers: Record<string, string>, path = '/api/streaming/v2/sse') => fetch(`${s.url}${path}`, { method: 'POST', body: JSON.stringify(sub), headers: { 'Content-Type': 'application/json', ...headers } });

  it('accepts the API\'s keys in every form clients send, refuses unknown ones, limits connections per key and without one', async () => {
    const store = createKeyStore(redis, prefix);
    const { key } = await store.create({ rps: 5, label: 'streaming test' });
    const unknown = await post({ 'X-API-Key': randomBytes(32).toString('hex') });
    expect({ status: unknown.status, body: await unknown.json() }).toEqual({ status: 401, body: { error: 'API key does not exist' } });
    const badWs = await wsClient(`${s.url.replace('http', 'ws')}/api/streaming/v2/ws?api_key=nope`);
    await eventually('the refusal', async () => (badWs.closed ? true : undefined), 10_000, 50);
    expect(badWs.messages).toEqual([{ error: 'API key does not exist' }]);

    const header = sseClient(`${s.url}/api/streaming/v2/sse`, sub, { 'X-API-Key': key });
    const query = await wsClient(`${s.url.replace('http', 'ws')}/api/streaming/v2/ws?api_key=${key}`);
    expect(await query.request({ operation: 'subscribe', ...sub, id: 'q' })).toEqual({ id: 'q', status: 'subscribed' });
    await eventually('the SSE ack', async () => (header.frames.length > 0 ? true : undefined), 10_000, 50);
    // Two open with this key: the third (TonAPI's ?token= form) is over the per-key limit.
    const third = await post({}, `/streaming/v2/sse?token=${key}`);
    expect({ status: third.status, body: await third.json() }).toEqual({ status: 429, body: { error: 'connection limit reached: 2 active connections' } });
    // Without a key: one per client address.
    const anon = sseClient(`${s.url}/api/streaming/v2/sse`, sub);
    await eventually('the anonymous ack', async () => (anon.frames.length > 0 ? true : undefined), 10_000, 50);
    const anon2 = await post({});
    expect({ status: anon2.status, body: await anon2.json() }).toEqual({ status: 429, body: { error: 'connection limit reached: 1 active connections' } });
    const from = emitted.length;
    emitBlock(3);
    await eventually('both keyed clients receive', async () => (header.frames.length >= 4 && query.notifications().length >= 3 ? true : undefined), 10_000, 50);
    expect(header.frames.slice(1).map((f) => f.id)).toEqual(cursorsSince(from));
    expect(query.notifications().map((m) => m.cursor)).toEqual(cursorsSince(from));

    // Revoked with the API's own key store: open connections are cut with the reason, new ones refused.
    await store.revoke(key);
    await eventually('both keyed connections cut', async () => (query.closed && header.frames.some((f) => f.event === 'error') ? true : undefined), 10_000, 50);
    expect(header.frames.at(-1)).toEqual({ event: 'error', id: undefined, data: { error: 'API key revoked' } });
    expect(query.messages.at(-1)).toEqual({ error: 'API key revoked' });
    expect(query.closed).toEqual({ code: 4001, reason: 'API key revoked' });
    const again = await post({ 'X-API-Key': key });
    expect({ status: again.status, body: await again.json() }).toEqual({ status: 401, body: { error: 'API key does not exist' } });
    // The anonymous client was not touched.
    expect(anon.frames.some((f) => f.event === 'error')).toBe(false);
    anon.close();
    header.close();
  }, 60_000);
});
