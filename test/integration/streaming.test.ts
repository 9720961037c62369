import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyStore, createStore, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { runPython } from './python.js';
import { type Received, sseClient, wsClient } from './streaming-clients.js';
import { readLedger } from '../support/ledger.js';
import { expectedTransactions } from './streaming-ledger.js';

/**
 * The streamer on real local-network traffic: localnet -> fetcher -> decoder -> writer (the watermark)
 * and the streamer reading the same topics. An SSE client, a WebSocket client (changing its
 * subscription mid-stream), the toncenter Python SDK and a client that keeps disconnecting and
 * resuming all watch wallets of the chain; what they receive is checked against the chain's ledger.
 * The WebSocket client and the SDK use a key made in the API's key store (Redis). The SDK is given
 * the API's base URL, as a toncenter.com user gives it one origin: the API passes streaming on.
 */
const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Rounds of 400 ms: traffic for the resuming client's 2 minutes, plus the start and the finish. */
/**
 * Rounds of 1 s: the resuming client's 2 minutes take ~120 rounds, so the chain stops 30 rounds after
 * that. (At 400 ms it ran 380 rounds, and two loaded cores made each one last ~0.9 s anyway.)
 */
const ROUND_MS = 1_000;
const STOP_AT = 150;
/**
 * Wallet actions per round: the followed accounts (every wallet of the first rounds) are still touched
 * in every round, so the resuming client's 2 minutes hold far more than the 50 events it must get back.
 */
const TRAFFIC_RATE = 2;
const RECONNECTS = 20;
/** The resuming client is disconnected RECONNECTS times at random moments within this long (the acceptance's 2 minutes). */
const RESUME_MS = 120_000;
/** Shortest life of one resuming connection, so every one gets its response before it is cut. */
const MIN_CONNECTION_MS = 300;
/** Upper bound of the traffic test: ~2.5 min on a quiet machine, longer on a loaded one (rounds slow down). */
const RUN_TIMEOUT_S = 1_100;


const run = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), `tonstream-streaming-${run}-`));
const ledgerPath = join(dir, 'ledger.jsonl');
const database = `tonstream_streaming_${run}`;
const procs: Record<string, ServiceProcess> = {};
let env: Record<string, string> = {};
let store: Store;
let base = '';
/** The API, passing /api/streaming/v2/* on to the streamer: the Python SDK gets this base URL, as toncenter.com's. */
let apiBase = '';
const redisPrefix = `tonstream-test:streaming:${run}:`;
let redis: Redis;
let apiKey = '';

const ledger = () => readLedger(ledgerPath);
const head = () => ledger().at(-1)?.mc_seqno ?? 0;

function assertAlive() {
  for (const p of Object.values(procs)) if (p.child.exitCode !== null) throw new Error(`${p.name} exited with code ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
}
const until = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 180_000) => eventually(what, check, timeoutMs, 300, assertAlive);

async function start(name: string, extra: Record<string, string> = {}, args: string[] = []) {
  procs[name] = startService(name, { ...env, METRICS_PORT: String(await freePort()), ...extra }, join(dir, 'logs'), args);
}

async function health(): Promise<{ components: { streamer: { fanout: { lastWhole: { confirmed: number; finalized: number } } } } }> {
  return (await fetch(`${base}/api/streaming/healthz`)).json() as never;
}

function ledgerTxs() {
  const all = new Map<string, { account: string; lt: string; round: number }>();
  for (const r of ledger()) for (const b of r.blocks) for (const t of b.transactions) all.set(t.hash, { account: t.account, lt: t.lt, round: r.mc_seqno });
  return all;
}

type Tx = { hash: string; account: string; lt: string; mc_block_seqno: number; finality: string };
const txsOf = (events: Record<string, unknown>[], finality: string) =>
  events.filter((e) => e.type === 'transactions' && e.finality === finality).flatMap((e) => e.transactions as Tx[]);

beforeAll(async () => {
  env = { KAFKA_BROKERS, CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, KAFKA_TOPIC_PREFIX: `stream${run}.`, FETCHER_GLOBAL_CONFIG: join(dir, 'localnet', 'global.config.json'), FETCHER_START_SEQNO: '1', LOG_LEVEL: 'info' };
  store = createStore({ url: CLICKHOUSE_URL, database });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  apiKey = (await createKeyStore(redis, redisPrefix).create({ rps: 10, label: 'streaming test' })).key;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  await start('streamer', { STREAMER_PORT: String(port), STREAMER_KEEPALIVE_MS: '1000', REDIS_URL, API_REDIS_PREFIX: redisPrefix, STREAMER_TRUST_GATEWAY_HEADERS: 'true' });
  await procs.streamer.waitFor(/streamer reading/);
  const apiPort = await freePort();
  apiBase = `http://127.0.0.1:${apiPort}`;
  await start('api', { API_PORT: String(apiPort), API_STREAMING_URL: base, REDIS_URL, API_REDIS_PREFIX: redisPrefix });
  await procs.api.waitFor(/api listening/);
  await start('localnet', { LOCALNET_PORT: String(await freePort()), LOCALNET_STATE_DIR: join(dir, 'localnet'), LOCALNET_ROUND_MS: String(ROUND_MS), LOCALNET_TRAFFIC_RATE: String(TRAFFIC_RATE), LOCALNET_SEED: `stream-${run}`, LOCALNET_LEDGER: ledgerPath, LOCALNET_STOP_AT_SEQNO: String(STOP_AT) }, ['--reset']);
  await procs.localnet.waitFor(/localnet serving/);
  await start('writer');
  await start('decoder');
  await start('fetcher');
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(procs).map((p) => p.stop()));
  await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  await store.close();
  for (const k of await redis.keys(`${redisPrefix}*`)) await redis.del(k);
  await redis.quit();
}, 60_000);

describe('streamer on local-network traffic', () => {
  let accounts: string[] = [];
  let subscribedAt = 0;
  const sse: { client?: ReturnType<typeof sseClient> } = {};
  const resumed: Received[] = [];
  let reconnects = 0;

  it('SSE, WebSocket, the Python SDK and a resuming client receive the ledger\'s transactions and account states, confirmed then finalized', async () => {
    await until('traffic on the chain', async () => (head() >= 4 ? true : undefined));
    accounts = [...new Set(ledger().flatMap((r) => r.blocks.flatMap((b) => b.transactions.map((t) => t.account))).filter((a) => a.startsWith('0:')))].slice(0, 40);
    expect(accounts.length).toBeGreaterThan(3);
    const subscription = { types: ['transactions', 'account_state_change'], addresses: accounts, min_finality: 'confirmed', id: 'sub-1' };

    sse.client = sseClient(`${base}/api/streaming/v2/sse`, subscription);
    const ws = await wsClient(`${base.replace('http', 'ws')}/streaming/v2/ws?api_key=${apiKey}`);
    expect(await ws.request({ operation: 'subscribe', ...subscription, id: 'w1' })).toEqual({ id: 'w1', status: 'subscribed' });
    // Where the stream stands once both subscriptions are in place (the SSE stream's `connected` frame,
    // the WebSocket's reply): the chain's head, or the streamer's last confirmed round if that is further
    // (the ledger line of a round can be written after the streamer confirmed it). A head read before
    // connecting expected blocks confirmed before the clients were subscribed (522 of 524 once; ci46:
    // 401 of 402 with the ledger behind the streamer).
    await until('the SSE subscription in place', async () => (sse.client!.connected() ? true : undefined));
    subscribedAt = Math.max(head(), (await health()).components.streamer.fanout.lastWhole.confirmed);
    // The SDK given the API's base URL (one origin); the other clients talk to the streamer itself.
    const python = runPython(['test/python/streaming_sdk_check.py'], { STREAM_BASE_URL: apiBase, STREAM_TRANSPORT: 'sse', STREAM_ADDRESSES: accounts.join(','), STREAM_UNTIL_MC: String(STOP_AT - 10), STREAM_TIMEOUT_S: String(RUN_TIMEOUT_S), STREAM_API_KEY: apiKey }, RUN_TIMEOUT_S * 1000);
    const pythonWs = runPython(['test/python/streaming_sdk_check.py'], { STREAM_BASE_URL: apiBase, STREAM_TRANSPORT: 'ws', STREAM_ADDRESSES: accounts.join(','), STREAM_UNTIL_MC: String(STOP_AT - 10), STREAM_TIMEOUT_S: String(RUN_TIMEOUT_S), STREAM_API_KEY: apiKey }, RUN_TIMEOUT_S * 1000);

    // The resuming client: disconnected at RECONNECTS random moments of RESUME_MS, back each time with Last-Event-ID.
    const cuts = Array.from({ length: RECONNECTS }, () => Math.random() * RESUME_MS).sort((a, b) => a - b);
    const resumeStart = Date.now();
    let resumeEnd = 0;
    const resumeLoop = (async () => {
      let lastId: string | undefined;
      while (reconnects < RECONNECTS && head() < STOP_AT) {
        const c = sseClient(`${base}/api/streaming/v2/sse`, subscription, lastId ? { 'Last-Event-ID': lastId } : {});
        await new Promise((r) => setTimeout(r, Math.max(MIN_CONNECTION_MS, resumeStart + cuts[reconnects] - Date.now())));
        c.close();
        await c.done;
        expect(c.status).toBe(200);
        expect(c.frames[0]).toEqual({ event: 'connected', data: { id: 'sub-1', status: 'subscribed' } });
        const events = c.frames.slice(1);
        resumed.push(...events);
        if (events.length > 0) lastId = events.at(-1)!.id;
        reconnects += 1;
      }
      resumeEnd = Date.now();
      const c = sseClient(`${base}/api/streaming/v2/sse`, subscription, lastId ? { 'Last-Event-ID': lastId } : {});
      return c;
    })();

    // WebSocket: half the addresses go away mid-stream, then come back.
    await until('a few rounds', async () => (head() >= subscribedAt + 12 ? true : undefined));
    const removed = accounts.slice(0, accounts.length / 2);
    expect(await ws.request({ operation: 'unsubscribe', addresses: removed, id: 'u1' })).toEqual({ id: 'u1', status: 'unsubscribed' });
    const cutAt = ws.messages.length;
    // Seven rounds streamed while they are out (the pong comes after every event sent before it).
    const outFrom = (await health()).components.streamer.fanout.lastWhole.confirmed;
    await until('seven rounds streamed without the removed addresses', async () => ((await health()).components.streamer.fanout.lastWhole.confirmed >= outFrom + 7 ? true : undefined));
    expect(await ws.request({ operation: 'ping', id: 'p1' })).toEqual({ id: 'p1', status: 'pong' });
    const whileOut = ws.messages.slice(cutAt).filter((m) => 'type' in m);
    expect(await ws.request({ operation: 'subscribe', ...subscription, id: 'w2' })).toEqual({ id: 'w2', status: 'subscribed' });
    const removedSet = new Set(removed.map((a) => a.toUpperCase()));
    for (const m of whileOut) {
      const touched = m.type === 'transactions' ? (m.transactions as Tx[]).map((t) => t.account) : [m.account as string];
      expect(touched.some((a) => removedSet.has(a)), JSON.stringify(m).slice(0, 200)).toBe(false);
    }

    const last = await resumeLoop;
    await until('the streamer finalizes the last round', async () => ((await health()).components.streamer.fanout.lastWhole.finalized >= STOP_AT ? true : undefined), RUN_TIMEOUT_S * 1000);
    // Nothing is streamed after the last round: the staying client is done once it has every finalized
    // transaction and account state the ledger gives its accounts, the resuming one once it has its last event.
    const upper = new Set(accounts.map((a) => a.toUpperCase()));
    const want = expectedTransactions(ledger(), upper, subscribedAt, STOP_AT);
    const touched = new Set<string>();
    for (const r of ledger()) if (r.mc_seqno > subscribedAt && r.mc_seqno <= STOP_AT) for (const b of r.blocks) for (const t of b.transactions) if (upper.has(t.account)) touched.add(`${t.account}@${r.mc_seqno}`);
    const roundOf = (cursor: string) => Number(/^[cf](\d+)/.exec(cursor)![1]);
    const finalizedStates = (events: Received[]) => events.filter((e) => e.data.type === 'account_state_change' && e.data.finality === 'finalized' && roundOf(e.id!) > subscribedAt);
    const stateKey = (e: Received) => `${e.data.account as string}@${roundOf(e.id!)}`;
    await until('both SSE clients received the last round', async () => {
      const events = sse.client!.frames.slice(1);
      const txs = new Set(txsOf(events.map((e) => e.data), 'finalized').map((t) => t.hash));
      const states = new Set(finalizedStates(events).map(stateKey));
      const whole = [...want.keys()].every((h) => txs.has(h)) && [...touched].every((k) => states.has(k));
      return whole && last.frames.at(-1)?.id === events.at(-1)?.id ? true : undefined;
    }, 60_000).catch(() => undefined); // if not, the assertions below say what is missing
    last.close();
    await last.done;
    resumed.push(...last.frames.slice(1));
    sse.client.close();
    await sse.client.done;
    ws.close();

    const all = ledgerTxs();
    const events = sse.client.frames.slice(1);
    expect(sse.client.frames[0]).toEqual({ event: 'connected', data: { id: 'sub-1', status: 'subscribed' } });
    expect(events.every((f) => f.event === 'event' && typeof f.id === 'string' && f.data.cursor === f.id)).toBe(true);
    expect(sse.client.comments).toContain(': keepalive');

    // Every streamed transaction is the ledger's (hash, account, lt, round), on a subscribed account.
    for (const stage of ['confirmed', 'finalized']) {
      for (const t of txsOf(events.map((e) => e.data), stage)) {
        expect(all.get(t.hash), t.hash).toEqual({ account: t.account, lt: t.lt, round: t.mc_block_seqno });
        expect(upper.has(t.account)).toBe(true);
        expect(t.finality).toBe(stage);
      }
    }
    // And every transaction the ledger has for them after the subscription arrives, confirmed then finalized, once each.
    expect(want.size).toBeGreaterThan(20);
    for (const stage of ['confirmed', 'finalized']) {
      const got = txsOf(events.map((e) => e.data), stage).filter((t) => t.mc_block_seqno > subscribedAt);
      expect(got.length, stage).toBe(new Set(got.map((t) => t.hash)).size);
      expect(new Set(got.map((t) => t.hash)), stage).toEqual(new Set(want.keys()));
    }
    const order = events.map((e) => e.data).filter((e) => e.type === 'transactions').flatMap((e) => (e.transactions as Tx[]).map((t) => `${t.hash}/${t.finality}`));
    for (const h of want.keys()) expect(order.indexOf(`${h}/confirmed`)).toBeLessThan(order.indexOf(`${h}/finalized`));

    // account_state_change: one finalized state per account and round in which the ledger touched it
    // (the cursor names the masterchain block an event belongs to).
    const states = finalizedStates(events);
    expect(new Set(states.map(stateKey))).toEqual(touched);
    for (const s of states) expect((s.data.state as { balance: string }).balance).toMatch(/^\d+$/);

    // Resume: 20 disconnects over 2 minutes of traffic, and the events equal, in order, those of the client that stayed.
    expect(reconnects).toBe(RECONNECTS);
    expect(resumeEnd - resumeStart).toBeGreaterThanOrEqual(cuts.at(-1)!);
    const firstCursor = resumed[0].id;
    const from = events.findIndex((e) => e.id === firstCursor);
    expect(from).toBeGreaterThanOrEqual(0);
    const stayed = events.slice(from).filter((e) => Number(/^[cf](\d+)/.exec(e.id!)![1]) <= STOP_AT);
    const back = resumed.filter((e) => Number(/^[cf](\d+)/.exec(e.id!)![1]) <= STOP_AT);
    expect(back.length).toBeGreaterThan(50);
    expect(back.map((e) => `${e.id} ${JSON.stringify(e.data)}`)).toEqual(stayed.map((e) => `${e.id} ${JSON.stringify(e.data)}`));

    // The Python SDK's own SSE and WebSocket clients parse the same notifications.
    for (const [name, p] of [['sse', await python], ['ws', await pythonWs]] as const) {
      expect(p.code, `${name}: ${p.stderr.slice(-2000)}`).toBe(0);
      const lines = p.stdout.trim().split('\n');
      expect(lines.at(-1)).toBe('DONE');
      const got = lines.slice(0, -1).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(got.some((n) => n.class === 'TransactionsNotification')).toBe(true);
      expect(got.some((n) => n.class === 'AccountStateNotification')).toBe(true);
      for (const t of txsOf(got, 'finalized')) expect(all.get(t.hash)).toEqual({ account: t.account, lt: t.lt, round: t.mc_block_seqno });
      const finalized = new Set(txsOf(got, 'finalized').map((t) => t.hash));
      // From a round the SDK surely saw (it subscribed before the WebSocket test waited 12 rounds) to the round before the one it stopped at.
      for (const [h, t] of want) if (t.round > subscribedAt + 12 && t.round < STOP_AT - 10) expect(finalized.has(h), `${name} missed ${h}`).toBe(true);
    }
  }, (RUN_TIMEOUT_S + 60) * 1000);
});

describe('streamer bad input', () => {
  const raw = () => `0:${randomBytes(32).toString('hex')}`;
  const post = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) => fetch(`${base}/api/streaming/v2/sse`, { method: 'POST', body, headers });
  const refusal = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });
  const ok = { types: ['transactions'], addresses: [raw()] };

  it('SSE: each malformed subscription is a 4xx with the reference\'s message, and the server stays up', async () => {
    expect(await refusal(await post(JSON.stringify(ok), {}))).toEqual({ status: 400, body: { error: 'invalid subscription request: Unprocessable Entity' } });
    expect((await refusal(await post('{"types":'))).body.error).toMatch(/^invalid subscription request: /);
    expect(await refusal(await post(JSON.stringify({ ...ok, id: 'x', types: ['transactions', 'blocks'] })))).toEqual({ status: 400, body: { id: 'x', error: 'invalid event type: blocks' } });
    expect(await refusal(await post(JSON.stringify({ ...ok, min_finality: 'final' })))).toEqual({ status: 400, body: { error: 'invalid subscription request: unknown finality state: final' } });
    expect(await refusal(await post(JSON.stringify({ addresses: ok.addresses })))).toEqual({ status: 400, body: { error: 'types are required for subscription' } });
    expect(await refusal(await post(JSON.stringify({ types: ['transactions'] })))).toEqual({ status: 400, body: { error: 'addresses are required for subscription' } });
    expect(await refusal(await post(JSON.stringify({ ...ok, addresses: ['EQnope'] })))).toEqual({ status: 400, body: { error: 'invalid address: EQnope' } });
    expect(await refusal(await post(JSON.stringify({ types: ['trace'] })))).toEqual({ status: 400, body: { error: 'trace_external_hash_norms are required for trace subscription' } });
    expect(await refusal(await post(JSON.stringify({ ...ok, trace_external_hash_norms: ['x'] })))).toEqual({ status: 400, body: { error: 'trace_external_hash_norms requires type "trace"' } });
    expect(await refusal(await post(JSON.stringify({ ...ok, id: 7 })))).toMatchObject({ status: 400 });
    expect(await refusal(await post(JSON.stringify({ ...ok, resume_from: 'not-a-cursor' })))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^invalid resume_from/) } });
    // A cursor from before what is retained: an explicit error, never a silent live start.
    expect(await refusal(await post(JSON.stringify(ok), { 'Content-Type': 'application/json', 'Last-Event-ID': 'c0.0f0' }))).toMatchObject({ status: 410, body: { error: expect.stringMatching(/^cursor too old/) } });
    // 10,000 addresses are accepted (the default cap); one more is refused.
    const many = Array.from({ length: 10_000 }, raw);
    const big = sseClient(`${base}/api/streaming/v2/sse`, { types: ['transactions'], addresses: many });
    await until('the 10,000-address subscription', async () => (big.frames.length > 0 ? true : undefined));
    expect(big.frames[0].data).toEqual({ status: 'subscribed' });
    big.close();
    expect(await refusal(await post(JSON.stringify({ types: ['transactions'], addresses: [...many, raw()] })))).toEqual({ status: 400, body: { error: 'too many addresses: 10001 > max 10000' } });
    expect((await post('x'.repeat(2 * 1024 * 1024))).status).toBe(413);
    expect((await fetch(`${base}/api/streaming/v2/ws`)).status).toBe(426);
    expect((await fetch(`${base}/api/streaming/v2/sse`)).status).toBe(405);
    // Per-key connection limit from the gateway's headers.
    const limited = { 'X-Limiting-Key': `k${run}`, 'X-Max-Parallel-Connections': '1' };
    const first = sseClient(`${base}/api/streaming/v2/sse`, ok, limited);
    await until('the first limited connection', async () => (first.frames.length > 0 ? true : undefined));
    const second = await refusal(await post(JSON.stringify(ok), { 'Content-Type': 'application/json', ...limited }));
    expect(second).toEqual({ status: 429, body: { error: 'connection limit reached: 1 active connections' } });
    first.close();
    expect((await health()).components.streamer).toBeDefined();
  }, 60_000);

  it('WebSocket: bad frames get an error reply and the connection stays; an oversized frame closes it with a reason', async () => {
    const ws = await wsClient(`${base.replace('http', 'ws')}/api/streaming/v2/ws`);
    expect(await ws.request(Buffer.from([1, 2, 3]))).toEqual({ error: 'invalid request envelope: binary frames are not supported, send JSON text' });
    expect((await ws.request('not json')).error).toMatch(/^invalid request envelope: /);
    expect(await ws.request({ operation: 'ping', id: 5 })).toEqual({ error: 'invalid request envelope: id: expected a string' });
    expect(await ws.request({ operation: 'dance', id: 'd' })).toEqual({ id: 'd', error: 'unknown operation: dance' });
    expect(await ws.request({ operation: 'subscribe', id: 's' })).toEqual({ id: 's', error: 'types are required' });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'] })).toEqual({ error: 'addresses are required' });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: ok.addresses, min_finality: 'soon' })).toEqual({ error: 'invalid subscribe request: unknown finality state: soon' });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: Array.from({ length: 10_001 }, raw) })).toEqual({ error: 'address limit exceeded: current 0 + new 10001 > max 10000' });
    expect(await ws.request({ operation: 'unsubscribe', id: 'u' })).toEqual({ id: 'u', error: 'addresses or trace_external_hash_norms are required' });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: ok.addresses, resume_from: 'c0.0f0' })).toMatchObject({ error: expect.stringMatching(/^cursor too old/) });
    expect(await ws.request({ operation: 'ping', id: 'p' })).toEqual({ id: 'p', status: 'pong' });
    ws.ws.send('x'.repeat(2 * 1024 * 1024));
    await until('the oversized frame closes the connection', async () => ws.closed ?? undefined, 10_000);
    expect(ws.closed!.code).toBe(1009);
    const limited = await wsClient(`${base.replace('http', 'ws')}/api/streaming/v2/ws`, { 'X-Limiting-Key': `w${run}`, 'X-Max-Parallel-Connections': '0' });
    await until('the limit error', async () => (limited.closed ? true : undefined), 10_000);
    expect(limited.messages).toEqual([{ error: 'connection limit reached: 0 active connections' }]);
    expect((await fetch(`${base}/api/streaming/healthz`)).status).toBe(200);
  }, 60_000);
});
