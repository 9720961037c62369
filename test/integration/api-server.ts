import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, type Store } from '@tonstream/store';
import { createApp } from '../../services/api/src/app.js';
import { createApiServer } from '../../services/api/src/http/http-server.js';
import { connectPendingRedis } from '../../services/api/src/pending-redis.js';
import type { PendingReader } from '../../services/api/src/v3/pending/pending.js';
import { dropDatabase } from '../support/clickhouse.js';

/** `pending`: the pending endpoints' Redis (REDIS_URL) under a prefix of this run's own. */
export type ApiUnderTest = { store: Store; base: string; pending: PendingReader; stop(): Promise<void> };

/**
 * The API app in this process on port 0, over `database` (created and migrated) of the real
 * ClickHouse; `stop()` closes the server and drops the database.
 */
export async function startApi(clickhouseUrl: string, database: string, options: { redisUrl?: string } = {}): Promise<ApiUnderTest> {
  const store = createStore({ url: clickhouseUrl, database });
  await migrate(store);
  const pending = connectPendingRedis(options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', `test_${randomBytes(4).toString('hex')}:`);
  // No offline queue: a request before the connection is up would answer 503.
  await new Promise((r) => (pending.redis.status === 'ready' ? r(null) : pending.redis.once('ready', r)));
  const app = createApp({ store, registry: createRegistry('api'), logger: createLogger({ level: 'error' }), pending, checkResponses: 'reject' });
  const server = createApiServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    store,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pending,
    async stop() {
      await new Promise<void>((r) => server.close(() => r()));
      pending.redis.disconnect();
      await store.close();
      await dropDatabase(clickhouseUrl, database);
    },
  };
}

export type Json = Record<string, unknown>;
export type JsonAnswer = { status: number; body: Json; headers: Headers };

/**
 * GET `path` of the API at `base`, the body parsed as JSON. Asked once more when the request dies on a
 * kept-alive socket the server closed meanwhile (the API runs in this process: a long synchronous check
 * between two requests lets its idle timer and the client's reuse cross), as HTTP clients retry an
 * idempotent request on a stale connection.
 */
export async function getJson(base: string, path: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const staleSocket = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === 'ECONNRESET';
  const res = await fetch(`${base}${path}`, { headers }).catch((err: unknown) => {
    if (staleSocket(err)) return fetch(`${base}${path}`, { headers });
    throw err;
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** `getJson` that expects 200 (naming the path and the body otherwise) and returns the body. */
export async function okJson<T = Json>(base: string, path: string, headers: Record<string, string> = {}): Promise<T> {
  const r = await getJson(base, path, headers);
  expect(r.status, `${path.slice(0, 120)}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  return r.body as T;
}
