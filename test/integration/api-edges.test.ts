/**
 * The API's edges (issue 23 item 8), on the real API app over the real ClickHouse and Redis:
 * - CORS ahead of the rate limits on v2 and v3: a browser page of another origin (real chromium)
 *   gets through its preflight without spending its allowance and can read the 429 it earns;
 * - /status/data.json: rate-limited, computed once for a burst of requests, and without hosts,
 *   ports or error texts (a watched service answers with secrets in its reasons); the page renders it;
 * - 500 and 503 bodies: a generic message and a request id that the log holds with the real error;
 * - v2 and v3 index reads: cut at the read timeout, and killed in ClickHouse when the client goes
 *   away, as system.processes shows. A slow ClickHouse is a view named `transactions` that yields
 *   ten rows a second (sleepEachRow), so a read of it runs for a minute unless it is stopped.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, saveWatermark, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { chromium } from 'playwright-core';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { createRateLimit } from '../../services/api/src/limits/rate-limit.js';
import { connectLimitsRedis } from '../../services/api/src/limits/redis-connection.js';
import { eventually, freePort } from '../support/processes.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
/** Migrated, with a watermark; its `transactions` is the slow view. */
const slowDb = `tonstream_api_edges_${run}`;
/** Migrated, with a watermark; `blocks` and `transactions` dropped, so reads of them fail with ClickHouse's own error text. */
const brokenDb = `tonstream_api_edges_broken_${run}`;
const prefix = `tonstream-test:api-edges:${run}:`;
const ACCOUNT = `0:${'5A'.repeat(32)}`;
/** v2 and v3 default read timeout (MAX_TIMEOUT_MS, V2_READ_TIMEOUT_MS). */
const READ_TIMEOUT_MS = 3_000;

const logs: Record<string, unknown>[] = [];
const logger = createLogger({ level: 'info', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
const cleanups: (() => Promise<unknown>)[] = [];
let admin: Store;

/** Debian's chromium (scripts/browser-env.sh; `npm test` exports TONSTREAM_CHROMIUM). Missing is an error. */
function chromiumPath(): string {
  const path = process.env.TONSTREAM_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no chromium at ${path}: run \`bash scripts/browser-env.sh\` (npm test does)`);
  return path;
}

// ---- clients, one loopback address each (a fresh anonymous window) ----
let nextHost = 40;
function newClient(): Agent {
  const agent = new Agent({ localAddress: `127.0.0.${nextHost++}` });
  cleanups.push(() => agent.close());
  return agent;
}
type Answer = { status: number; text: string; headers: Headers };
async function call(client: Agent, url: string, init: { method?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Answer> {
  const res = await fetch(url, { dispatcher: client, ...init });
  return { status: res.status, text: await res.text(), headers: res.headers as unknown as Headers };
}

// ---- a service watched by /status: counts its probes, fails with details nobody outside may see ----
const SECRET_REASON = 'producer to 10.20.30.40:9092 failing: SASL secret-detail';
let probes = 0;
let watched: Server;
let closedPort = 0;

// ---- API apps in this process ----
async function startApp(store: Store, options: { rateLimited?: boolean } = {}): Promise<string> {
  const registry = createRegistry('api');
  const limitsRedis = options.rateLimited ? connectLimitsRedis(REDIS_URL, logger) : undefined;
  if (limitsRedis) await once(limitsRedis.redis, 'ready');
  const rateLimit = limitsRedis && createRateLimit({ redis: limitsRedis.redis, prefix, anonymousRps: 1, registry, logger });
  const server = createApiServer(createApp({ store, registry, logger, rateLimit, checkResponses: 'reject' })).listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await limitsRedis?.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function migratedStore(database: string): Promise<Store> {
  const store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
  await saveWatermark(store, { mc_seqno: 100, gen_utime: Math.floor(Date.now() / 1000) });
  cleanups.push(async () => {
    await store.command(`DROP DATABASE IF EXISTS ${database}`);
    await store.close();
  });
  return store;
}

beforeAll(async () => {
  admin = createStore({ url: CLICKHOUSE_URL, database: 'default' });
  watched = createServer((_req, res) => {
    probes++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'degraded', reasons: [SECRET_REASON] }));
  }).listen(0, '127.0.0.1');
  await once(watched, 'listening');
  closedPort = await freePort();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  watched?.close();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
  redis.disconnect();
  await admin?.close();
});

describe('CORS ahead of the rate limits', () => {
  let base: string;
  beforeAll(async () => {
    base = await startApp(await migratedStore(`${slowDb}_cors`), { rateLimited: true });
  });

  const preflight = { 'Origin': 'https://dapp.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key, x-timeout' };

  it('answers preflights on v2 and v3 without spending the allowance', async () => {
    for (const path of ['/api/v3/blocks?limit=1', '/api/v2/getMasterchainInfo', '/api/v2/jsonRPC']) {
      const client = newClient();
      for (let i = 0; i < 3; i++) {
        const answer = await call(client, `${base}${path}`, { method: 'OPTIONS', headers: preflight });
        expect(answer.status, path).toBe(204);
        expect(answer.headers.get('access-control-allow-origin'), path).toBe('*');
        expect(answer.headers.get('access-control-allow-methods'), path).toMatch(/GET.*POST|POST.*GET/);
        expect(answer.headers.get('access-control-allow-headers'), path).toBe('x-api-key, x-timeout');
      }
      // The client's one request a second is still there.
      expect((await call(client, `${base}${path.replace('/jsonRPC', '/getMasterchainInfo')}`)).status, path).not.toBe(429);
    }
  });

  it('v3 answers carry CORS headers, and so do 429 and 401 on v2 and v3', async () => {
    for (const path of ['/api/v3/blocks?limit=1', '/api/v2/getMasterchainInfo']) {
      const client = newClient();
      const first = await call(client, `${base}${path}`, { headers: { Origin: 'https://dapp.example' } });
      expect(first.status, path).not.toBe(429);
      expect(first.headers.get('access-control-allow-origin'), path).toBe('*');
      const limited = await call(client, `${base}${path}`, { headers: { Origin: 'https://dapp.example' } });
      expect(limited.status, path).toBe(429);
      expect(limited.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(limited.headers.get('access-control-expose-headers'), path).toContain('Retry-After');
      const unknownKey = await call(newClient(), `${base}${path}`, { headers: { Origin: 'https://dapp.example', 'X-API-Key': 'f'.repeat(64) } });
      expect(unknownKey.status, path).toBe(401);
      expect(unknownKey.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('a page of another origin in a real browser reads its answer, then the 429 with its Retry-After', async () => {
    const origin = createServer((_req, res) => res.setHeader('content-type', 'text/html').end('<!DOCTYPE html><title>dapp</title>')).listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      // `localhost` is another origin than the API's 127.0.0.1, and the browser's requests come from 127.0.0.1.
      await page.goto(`http://localhost:${(origin.address() as AddressInfo).port}/`);
      // X-Timeout is not a safelisted header: the browser sends a preflight first.
      const answers = await page.evaluate(async (url) => {
        // The page's own fetch (this module's `fetch` is undici's, which the bundler would put here).
        const pageFetch = (globalThis as unknown as { fetch: typeof fetch }).fetch;
        const out: { status: number | string; retryAfter?: string | null }[] = [];
        for (let i = 0; i < 2; i++) {
          try {
            const res = await pageFetch(url, { headers: { 'X-Timeout': '2000' } });
            out.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
          } catch (err) {
            out.push({ status: String(err) });
          }
        }
        return out;
      }, `${base}/api/v3/blocks?limit=1`);
      expect(answers).toEqual([
        { status: 200, retryAfter: null },
        { status: 429, retryAfter: '1' },
      ]);
    } finally {
      await browser.close();
      origin.close();
    }
  });
});

describe('/status/data.json', () => {
  let base: string;
  let limitedBase: string;
  beforeAll(async () => {
    const store = await migratedStore(`${slowDb}_status`);
    // Read by the status router when the app is made (this file runs in a process of its own). The
    // watched services are asked directly: without PROMETHEUS_URL, which `npm test` exports.
    const prometheusUrl = process.env.PROMETHEUS_URL;
    delete process.env.PROMETHEUS_URL;
    process.env.STATUS_SERVICES = `alpha=http://127.0.0.1:${(watched.address() as AddressInfo).port},beta=http://127.0.0.1:${closedPort}`;
    try {
      base = await startApp(store);
      limitedBase = await startApp(store, { rateLimited: true });
    } finally {
      delete process.env.STATUS_SERVICES;
      if (prometheusUrl !== undefined) process.env.PROMETHEUS_URL = prometheusUrl;
    }
  });

  it('shows each service by name and state only: no hosts, ports or error texts', async () => {
    const answer = await call(newClient(), `${base}/status/data.json`);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text) as { health: { services: unknown[] } };
    expect(body.health.services).toEqual([
      { name: 'alpha', state: 'degraded' },
      { name: 'beta', state: 'down' },
    ]);
    for (const leak of ['127.0.0.1', String((watched.address() as AddressInfo).port), String(closedPort), '10.20.30.40', 'secret-detail', 'fetch failed', 'ECONNREFUSED']) {
      expect(answer.text, leak).not.toContain(leak);
    }
  });

  it('the page still renders them in a real browser', async () => {
    const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${base}/status`);
      await page.locator('#status[data-loaded="true"]').waitFor({ timeout: 30_000 });
      const rows = await page.locator('#services tr').evaluateAll((trs) => trs.map((tr) => ({ cells: [...tr.children].map((td) => td.textContent), state: tr.className })));
      expect(rows).toEqual([
        { cells: ['alpha', 'degraded'], state: 'state-degraded' },
        { cells: ['beta', 'down'], state: 'state-down' },
      ]);
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('computes one snapshot for a burst of requests', async () => {
    const before = probes;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 30 }, () => call(newClient(), `${base}/status/data.json`)));
    const elapsed = Date.now() - started;
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // Each computation probes the watched service once; at most one a reuse time (3 s), never one per request.
    expect(probes - before).toBeLessThanOrEqual(1 + Math.floor(elapsed / 3_000));
  });

  it('is rate-limited like the API; the page and its assets are not', async () => {
    const client = newClient();
    expect((await call(client, `${limitedBase}/status/data.json`)).status).toBe(200);
    const refused = await call(client, `${limitedBase}/status/data.json`);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({ error: 'Ratelimit exceeded' });
    for (const path of ['/status', '/status/status.js', '/status/uPlot.min.css']) expect((await call(client, `${limitedBase}${path}`)).status, path).toBe(200);
  });
});

describe('500 and 503 answers', () => {
  let broken: string;
  let unreachable: string;
  beforeAll(async () => {
    const store = await migratedStore(brokenDb);
    await store.command(`DROP TABLE ${brokenDb}.blocks`);
    await store.command(`DROP TABLE ${brokenDb}.transactions`);
    broken = await startApp(store);
    const nowhere = createStore({ url: `http://127.0.0.1:${closedPort}`, database: brokenDb });
    cleanups.push(() => nowhere.close());
    unreachable = await startApp(nowhere);
  });

  /** The answer's request id, and the logged error under it. */
  function logged(requestId: string): string {
    const line = logs.find((l) => l.request_id === requestId);
    expect(line, `a log line with request_id ${requestId}`).toBeDefined();
    return JSON.stringify(line);
  }

  it('a failing read answers a generic 500 with a request id the log holds with the real error (v3 and v2)', async () => {
    const cases = [
      { path: '/api/v3/blocks?limit=1', body: (id: string) => ({ error: 'internal server error', request_id: id }) },
      { path: `/api/v2/getTransactions?address=${ACCOUNT}`, body: (id: string) => ({ ok: false, error: 'internal server error', code: 500, request_id: id, '@extra': expect.any(String) }) },
    ];
    for (const { path, body } of cases) {
      const answer = await call(newClient(), `${broken}${path}`);
      expect(answer.status, path).toBe(500);
      const id = answer.headers.get('x-request-id') ?? '';
      expect(id, path).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(answer.text), path).toEqual(body(id));
      for (const leak of [brokenDb, 'Code:', 'SELECT', "doesn't exist"]) expect(answer.text, `${path}: ${leak}`).not.toContain(leak);
      expect(logged(id), path).toMatch(/Table .*doesn't exist/);
    }
  });

  it('ClickHouse unreachable answers 503 without its address (v3 and v2)', async () => {
    for (const path of ['/api/v3/blocks?limit=1', `/api/v2/getTransactions?address=${ACCOUNT}`]) {
      const answer = await call(newClient(), `${unreachable}${path}`);
      expect(answer.status, path).toBe(503);
      expect(JSON.parse(answer.text), path).toMatchObject({ error: 'index unavailable' });
      for (const leak of ['127.0.0.1', String(closedPort), 'ECONNREFUSED']) expect(answer.text, `${path}: ${leak}`).not.toContain(leak);
      expect(logged(answer.headers.get('x-request-id') ?? ''), path).toContain('ECONNREFUSED');
    }
  });
});

describe('index reads: timeout and cancellation', () => {
  let base: string;
  beforeAll(async () => {
    const store = await migratedStore(slowDb);
    await store.command(`DROP TABLE ${slowDb}.transactions`);
    // One row per block (max_block_size = 1) and 0.1 s per row: ten rows a second for a minute,
    // stoppable between any two rows. Its columns are those the transaction reads use.
    await store.command(
      `CREATE VIEW ${slowDb}.transactions AS SELECT toString(number) AS account, number AS lt, '' AS hash, toUInt32(0) AS now, toUInt32(0) AS mc_block_seqno, ` +
        `toInt32(0) AS workchain, toUInt64(0) AS shard, toUInt32(0) AS block_seqno, '' AS in_msg_hash, '' AS record, '' AS boc, toUInt32(0) AS global_version ` +
        `FROM system.numbers WHERE sleepEachRow(0.1) = 0 LIMIT 600 SETTINGS max_block_size = 1`,
    );
    base = await startApp(store);
  });

  /** The API's reads of the slow view running in ClickHouse, with their elapsed seconds. */
  const running = () =>
    admin.query<{ query_id: string; elapsed: number }>(
      `SELECT query_id, elapsed FROM system.processes WHERE query LIKE '%${slowDb}.transactions%' AND query NOT LIKE '%system.processes%'`,
    );
  const noneRunning = () => eventually('no read of the slow view left in ClickHouse', async () => ((await running()).length === 0 ? true : undefined), 20_000, 50);

  it('a v2 read answers 504 at the read timeout and leaves nothing running', async () => {
    await noneRunning();
    const started = Date.now();
    const answer = await call(newClient(), `${base}/api/v2/getTransactions?address=${ACCOUNT}`, { signal: AbortSignal.timeout(20_000) });
    expect(answer.status).toBe(504);
    expect(JSON.parse(answer.text)).toMatchObject({ ok: false, code: 504, error: `timeout: the index query took over ${READ_TIMEOUT_MS} ms` });
    expect(Date.now() - started).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 100);
    await noneRunning();
  });

  for (const [api, path] of [
    ['v2', `/api/v2/getTransactions?address=${ACCOUNT}`],
    ['v3', `/api/v3/transactions?account=${ACCOUNT}`],
  ] as const) {
    it(`a ${api} read is killed in ClickHouse when its client goes away`, async () => {
      await noneRunning();
      const abort = new AbortController();
      const request = call(newClient(), `${base}${path}`, { signal: abort.signal }).catch(() => undefined);
      await eventually('the read running in ClickHouse', async () => ((await running()).length > 0 ? true : undefined), 10_000, 20);
      abort.abort();
      await request;
      // Gone well before the read timeout would have ended it: it was killed, not timed out.
      let oldest = 0;
      await eventually(
        'the read gone from system.processes',
        async () => {
          const rows = await running();
          for (const r of rows) oldest = Math.max(oldest, Number(r.elapsed));
          return rows.length === 0 ? true : undefined;
        },
        10_000,
        20,
      );
      expect(oldest * 1000).toBeLessThan(READ_TIMEOUT_MS - 1_000);
    });
  }
});
