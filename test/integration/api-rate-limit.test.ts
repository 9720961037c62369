/**
 * API keys and rate limits (issue 11 item 4) against the real Redis and real API processes: the
 * anonymous limit per client IP, a key's own limit, two processes sharing one limit, revoked and
 * unknown keys, and the per-process fallback while Redis is unreachable. Keys are made and revoked
 * with the CLI (`services/api/dist/keys-main.js`, built by `npx tsc -b`) as a child process.
 * Expected texts and statuses are toncenter's (reference docs/toncenter-v2.md / docs/toncenter-v3.md §1.2);
 * key hashes are checked with node:crypto's sha256. Each client gets its own loopback address
 * (127.0.0.x), so every test starts with fresh per-IP windows. The window is one second: what it
 * must answer is only decided when the requests fell within one window, which the client's clock
 * shows (`withinOneWindow`); on a machine too slow for that, an attempt is repeated, not failed.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, type Store } from '@tonstream/store';
import { Redis } from 'ioredis';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { createRateLimit, WINDOW_MS } from '../../services/api/src/limits/rate-limit.js';
import { connectLimitsRedis } from '../../services/api/src/limits/redis-connection.js';
import { eventually, freePort, ROOT, type ServiceProcess, startService } from '../support/processes.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const run = randomBytes(4).toString('hex');
const database = `tonstream_api_rate_limit_${run}`;
const prefix = `tonstream-test:rate-limit:${run}:`;
const KEYS_CLI = join(ROOT, 'services/api/dist/keys-main.js');
const API_MAIN = join(ROOT, 'services/api/dist/main.js');
const logDir = mkdtempSync(join(tmpdir(), `tonstream-rate-limit-${run}-`));

/** toncenter's gateway texts (§1.2). */
const RATE_LIMITED = 'Ratelimit exceeded';
const UNKNOWN_KEY = 'API key does not exist';
/** An endpoint that answers 200 on an empty index. */
const V3_PATH = '/api/v3/blocks?limit=1';
const V2_PATH = '/api/v2/getMasterchainInfo';

let store: Store;
const cleanups: (() => Promise<unknown>)[] = [];

// ---- clients, one loopback address each ----
let nextHost = 10;
const agents: Agent[] = [];
/** A client with an address of its own (127.0.0.x): a fresh anonymous window. */
function newClient(): Agent {
  const agent = new Agent({ localAddress: `127.0.0.${nextHost++}` });
  agents.push(agent);
  return agent;
}
type Answer = { status: number; body: unknown; text: string; retryAfter: string | null };
async function call(client: Agent, base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { dispatcher: client, headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (health, metrics, docs): keep the text
  }
  return { status: res.status, body, text, retryAfter: res.headers.get('retry-after') };
}

/** A request as the client timed it: the limiter counted it at some instant between `sentMs` and `doneMs`. */
type Timed = Answer & { sentMs: number; doneMs: number };
async function timed(client: Agent, base: string, path: string, headers: Record<string, string> = {}): Promise<Timed> {
  const sentMs = Date.now();
  const answer = await call(client, base, path, headers);
  // Date.now() truncates to the millisecond: the answer came before the next one.
  return { ...answer, sentMs, doneMs: Date.now() + 1 };
}

/**
 * Runs `attempt` until its timed requests all fell in one window of the limiter: sent and answered
 * within WINDOW_MS, so wherever in those spans each was counted, all were counted within one window
 * and the limit alone decides which are refused. Each attempt must use fresh clients or keys (or
 * wait out the window). A slower attempt decides nothing and is repeated.
 */
async function withinOneWindow<T extends Timed[]>(attempt: () => Promise<T>): Promise<T> {
  const spans: number[] = [];
  while (spans.length < 5) {
    const requests = await attempt();
    const span = Math.max(...requests.map((r) => r.doneMs)) - Math.min(...requests.map((r) => r.sentMs));
    if (span < WINDOW_MS) return requests;
    spans.push(span);
    console.log(JSON.stringify({ rate_limit_attempt_over_one_window_ms: span }));
  }
  throw new Error(`no attempt fit in one ${WINDOW_MS} ms window (took ${spans.join(', ')} ms): too slow to show a limit`);
}

// ---- the keys CLI as a child process ----
type CliResult = { code: number | null; stdout: string; stderr: string };
async function keysCli(...args: string[]): Promise<CliResult> {
  const child = spawn(process.execPath, [KEYS_CLI, ...args], { cwd: ROOT, env: { ...process.env, REDIS_URL, API_REDIS_PREFIX: prefix }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
async function createKey(rps: number, label: string): Promise<string> {
  const r = await keysCli('create', '--rps', String(rps), '--label', label, '--json');
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { key: string }).key;
}
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

// ---- API apps in this process ----
type LimitedApi = { base: string; stop(): Promise<void> };
async function startApp(options: { redisUrl?: string; waitForRedis?: boolean }): Promise<LimitedApi> {
  const registry = createRegistry('api');
  const logger = createLogger({ level: 'error' });
  const limitsRedis = options.redisUrl === undefined ? undefined : connectLimitsRedis(options.redisUrl, logger);
  if (limitsRedis && options.waitForRedis) await once(limitsRedis.redis, 'ready');
  const rateLimit = limitsRedis && createRateLimit({ redis: limitsRedis.redis, prefix, anonymousRps: 1, registry, logger });
  const server: Server = createApiServer(createApp({ store, registry, logger, rateLimit, checkResponses: 'reject' })).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const api = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await limitsRedis?.close();
    },
  };
  cleanups.push(() => api.stop());
  return api;
}

beforeAll(async () => {
  for (const built of [KEYS_CLI, API_MAIN]) if (!existsSync(built)) throw new Error(`${built} is missing: run npx tsc -b first`);
  store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  await Promise.all(agents.map((a) => a.close()));
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
  redis.disconnect();
  await store.command(`DROP DATABASE IF EXISTS ${database}`);
  await store.close();
});

describe('rate limits off (the default)', () => {
  it('serves every request, with or without a key', async () => {
    const api = await startApp({});
    const client = newClient();
    for (let i = 0; i < 5; i++) expect((await call(client, api.base, V3_PATH)).status).toBe(200);
    expect((await call(client, api.base, `${V3_PATH}&api_key=no-such-key`)).status).toBe(200);
  });
});

describe('one API process, Redis up', () => {
  let api: LimitedApi;
  beforeAll(async () => {
    api = await startApp({ redisUrl: REDIS_URL, waitForRedis: true });
  });

  it('without a key, the second request within a second is 429 {error} with Retry-After on v3', async () => {
    let client!: Agent;
    const [first, refused] = await withinOneWindow(async () => {
      client = newClient();
      return [await timed(client, api.base, V3_PATH), await timed(client, api.base, V3_PATH)];
    });
    expect(first.status).toBe(200);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: RATE_LIMITED });
    expect(refused.retryAfter).toBe('1');
    // another client is not affected
    expect((await call(newClient(), api.base, V3_PATH)).status).toBe(200);
    // waiting as told is enough
    await new Promise((r) => setTimeout(r, Number(refused.retryAfter) * 1000));
    expect((await call(client, api.base, V3_PATH)).status).toBe(200);
  });

  it('answers v2 in its envelope, also for jsonRPC', async () => {
    const paths = [V2_PATH, '/api/v2/jsonRPC'];
    const [first, ...refusals] = await withinOneWindow(async () => {
      const client = newClient();
      const answers = [await timed(client, api.base, V2_PATH)];
      for (const path of paths) answers.push(await timed(client, api.base, path));
      return answers;
    });
    expect(first.status).not.toBe(429);
    for (const [i, refused] of refusals.entries()) {
      expect(refused.status, paths[i]).toBe(429);
      expect(refused.body).toEqual({ ok: false, error: RATE_LIMITED, code: 429 });
      expect(refused.retryAfter).toBe('1');
    }
  });

  it('never limits health, metrics, the OpenAPI document or the docs page', async () => {
    let client!: Agent;
    const [, refused] = await withinOneWindow(async () => {
      client = newClient();
      return [await timed(client, api.base, V3_PATH), await timed(client, api.base, V3_PATH)];
    });
    expect(refused.status).toBe(429);
    for (const path of ['/healthcheck', '/metrics', '/api/v3/openapi.json', '/api/v3/index.html', '/api/v3/swagger-ui.css']) {
      for (let i = 0; i < 3; i++) expect((await call(client, api.base, path)).status, path).toBe(200);
    }
    expect((await call(client, api.base, '/healthcheck')).text).toBe('OK');
    expect((await call(client, api.base, '/metrics')).text).toMatch(/^tonstream_api_rate_limit_shared\{service="api"\} 1$/m);
  });

  it('a key gets its own limit (header or api_key), apart from its IP budget', async () => {
    let client!: Agent;
    const [header, query, v2, refused] = await withinOneWindow(async () => {
      const key = await createKey(3, 'own limit');
      client = newClient();
      return [
        await timed(client, api.base, V3_PATH, { 'X-API-Key': key }),
        await timed(client, api.base, `${V3_PATH}&api_key=${key}`),
        await timed(client, api.base, V2_PATH, { 'X-API-Key': key }),
        await timed(client, api.base, V3_PATH, { 'X-API-Key': key }),
      ];
    });
    expect(header.status).toBe(200);
    expect(query.status).toBe(200);
    expect(v2.status).not.toBe(429);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: RATE_LIMITED });
    expect(refused.retryAfter).toBe('1');
    // the same client without the key still has its anonymous request
    expect((await call(client, api.base, V3_PATH)).status).toBe(200);
  });

  it('refuses an unknown key with 401 (v2 envelope on v2)', async () => {
    const client = newClient();
    const v3 = await call(client, api.base, V3_PATH, { 'X-API-Key': 'f'.repeat(64) });
    expect(v3.status).toBe(401);
    expect(v3.body).toEqual({ error: UNKNOWN_KEY });
    const v2 = await call(client, api.base, `${V2_PATH}?api_key=nope`);
    expect(v2.status).toBe(401);
    expect(v2.body).toEqual({ ok: false, error: UNKNOWN_KEY, code: 401 });
  });

  it('the CLI prints a key once, stores only its sha256 and lists it', async () => {
    const created = await keysCli('create', '--rps', '7', '--label', 'listed key');
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.split('\n')[0];
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const listed = await keysCli('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const row = (JSON.parse(listed.stdout) as { hash: string; rps: number; label: string; created_at: string }[]).find((k) => k.label === 'listed key');
    expect(row).toMatchObject({ hash: sha256(key), rps: 7 });
    expect(Math.abs(Date.parse(row!.created_at) - Date.now())).toBeLessThan(60_000);
    const text = await keysCli('list');
    expect(text.stdout).toContain(`${sha256(key).slice(0, 16)}  rps 7`);
    expect(text.stdout).not.toContain(key);
    // nothing under the prefix holds the key itself
    const redis = new Redis(REDIS_URL);
    try {
      for (const name of await redis.keys(`${prefix}*`)) {
        const type = await redis.type(name);
        const dump = type === 'hash' ? JSON.stringify(await redis.hgetall(name)) : JSON.stringify(await redis.zrange(name, '0', '-1'));
        expect(name + dump).not.toContain(key);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('the CLI refuses bad usage (exit 2) and unknown keys (exit 1)', async () => {
    const usage = await keysCli('create', '--rps', 'many');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--rps must be a positive integer');
    const unknown = await keysCli('revoke', '0123456789abcdef');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no key with hash prefix 0123456789abcdef');
  });
});

describe('two API processes share the limits through Redis', () => {
  const procs: ServiceProcess[] = [];
  const bases: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = startService('api', {
        API_HOST: '127.0.0.1',
        API_PORT: String(port),
        CLICKHOUSE_URL,
        CLICKHOUSE_DATABASE: database,
        API_RATE_LIMIT: 'on',
        REDIS_URL,
        API_REDIS_PREFIX: prefix,
        API_TRUST_PROXY: '1',
        API_GLOBAL_CONFIG: 'none',
        LOG_LEVEL: 'info',
      }, logDir);
      procs.push(proc);
      cleanups.push(() => proc.stop());
      bases.push(`http://127.0.0.1:${port}`);
    }
    for (const proc of procs) {
      await proc.waitFor(/api listening/);
      await proc.waitFor(/rate limits shared through Redis/);
    }
  });

  it('an anonymous client admitted by one process is refused by the other', async () => {
    const [admitted, refused] = await withinOneWindow(async () => {
      const client = newClient();
      return [await timed(client, bases[0], V3_PATH), await timed(client, bases[1], V3_PATH)];
    });
    expect(admitted.status).toBe(200);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('1');
  });

  it('behind a trusted proxy (API_TRUST_PROXY=1) the X-Forwarded-For client is counted, not the proxy', async () => {
    const proxy = newClient();
    let host = 0;
    const answers = await withinOneWindow(async () => {
      const [a, b] = [`203.0.113.${++host}`, `203.0.113.${++host}`].map((ip) => ({ 'X-Forwarded-For': ip }));
      return [await timed(proxy, bases[0], V3_PATH, a), await timed(proxy, bases[1], V3_PATH, b), await timed(proxy, bases[1], V3_PATH, a)];
    });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
  });

  it("a key's limit is one budget over both processes, also under concurrent requests", async () => {
    const alternating = await withinOneWindow(async () => {
      const h = { 'X-API-Key': await createKey(2, 'shared') };
      const client = newClient();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await timed(client, bases[i % 2], V3_PATH, h));
      return answers;
    });
    expect(alternating.map((a) => a.status)).toEqual([200, 200, 429, 429]);

    const answers = await withinOneWindow(async () => {
      const h = { 'X-API-Key': await createKey(5, 'burst') };
      return Promise.all(Array.from({ length: 12 }, (_, i) => timed(newClient(), bases[i % 2], V3_PATH, h)));
    });
    expect(answers.filter((a) => a.status === 200).length).toBe(5);
    expect(answers.filter((a) => a.status === 429).length).toBe(7);
  });

  it('a key revoked with the CLI (by hash prefix or in full) is refused by both processes at once', async () => {
    const byPrefix = await createKey(10, 'to revoke by prefix');
    const inFull = await createKey(10, 'to revoke in full');
    const client = newClient();
    for (const key of [byPrefix, inFull]) for (const base of bases) expect((await call(client, base, V3_PATH, { 'X-API-Key': key })).status).toBe(200);

    const revoked = await keysCli('revoke', sha256(byPrefix).slice(0, 12));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('revoked');
    const full = await keysCli('revoke', inFull);
    expect(full.code, full.stderr).toBe(0);
    for (const key of [byPrefix, inFull]) {
      for (const base of bases) {
        const v3 = await call(client, base, V3_PATH, { 'X-API-Key': key });
        expect(v3.status).toBe(401);
        expect(v3.body).toEqual({ error: UNKNOWN_KEY });
        expect((await call(client, base, `${V2_PATH}?api_key=${key}`)).body).toEqual({ ok: false, error: UNKNOWN_KEY, code: 401 });
      }
    }
    const listed = JSON.parse((await keysCli('list', '--json')).stdout) as { hash: string }[];
    expect(listed.map((k) => k.hash)).not.toContain(sha256(byPrefix));
    expect(listed.map((k) => k.hash)).not.toContain(sha256(inFull));
  });
});

describe('Redis unreachable', () => {
  it('an API pointed at a closed port serves with per-process limits and says so', async () => {
    const api = await startApp({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    const client = newClient();
    const health = await call(client, api.base, '/healthcheck');
    expect(health.status).toBe(200);
    expect(health.text).toMatch(/^OK; rate limits are per-process: Redis unreachable/);
    expect((await call(client, api.base, '/metrics')).text).toMatch(/^tonstream_api_rate_limit_shared\{service="api"\} 0$/m);
    const twice = (headers: Record<string, string> = {}) =>
      withinOneWindow(async () => {
        const fresh = newClient();
        return [await timed(fresh, api.base, V3_PATH, headers), await timed(fresh, api.base, V3_PATH, headers)];
      });
    const [admitted, refused] = await twice();
    expect(admitted.status).toBe(200);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: RATE_LIMITED });
    expect(refused.retryAfter).toBe('1');
    // a key nobody could check gets its IP's anonymous limit
    expect((await twice({ 'X-API-Key': 'a'.repeat(64) })).map((a) => a.status)).toEqual([200, 429]);
  });

  it('when Redis goes away a verified key keeps its limit per process, and sharing resumes when it is back', async () => {
    // A TCP proxy in front of the real Redis stands for the network: closing it is the outage.
    const proxyPort = await freePort();
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = new URL(REDIS_URL);
      const server = connect(Number(upstream.port || 6379), upstream.hostname);
      for (const s of [client, server]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(server).pipe(client);
    });
    const listen = () => new Promise<void>((r) => proxy.listen(proxyPort, '127.0.0.1', () => r()));
    await listen();
    cleanups.push(async () => {
      const closed = new Promise((r) => proxy.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    });
    const api = await startApp({ redisUrl: `redis://127.0.0.1:${proxyPort}`, waitForRedis: true });
    const key = await createKey(3, 'survives outage');
    const client = newClient();
    expect((await call(client, api.base, V3_PATH, { 'X-API-Key': key })).status).toBe(200);

    const closed = new Promise((r) => proxy.close(r));
    for (const s of sockets) s.destroy();
    await closed;
    await eventually('per-process mode', async () => ((await call(client, api.base, '/healthcheck')).text.includes('per-process') ? true : undefined), 10_000, 50);
    // Its request so far was counted in Redis: this process's window for the key starts empty.
    let lastMs = 0;
    const during = await withinOneWindow(async () => {
      // A repeated attempt first waits out the window of the one before.
      await new Promise((r) => setTimeout(r, Math.max(0, lastMs + WINDOW_MS - Date.now())));
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await timed(client, api.base, V3_PATH, { 'X-API-Key': key }));
      lastMs = answers.at(-1)!.doneMs;
      return answers;
    });
    expect(during.map((a) => a.status)).toEqual([200, 200, 200, 429]);

    await listen();
    await eventually('shared mode again', async () => ((await call(client, api.base, '/healthcheck')).text === 'OK' ? true : undefined), 15_000, 100);
    expect((await call(client, api.base, '/metrics')).text).toMatch(/^tonstream_api_rate_limit_shared\{service="api"\} 1$/m);
  });
});
