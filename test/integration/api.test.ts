import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock } from '@tonstream/block';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, migrate, recordBatch, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../services/api/src/app.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const BLOCKS = join(import.meta.dirname, '../fixtures/mainnet/blocks');
const database = `tonstream_api_${randomBytes(4).toString('hex')}`;
let store: Store;
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  store = createStore({ url: CLICKHOUSE_URL, database });
  await migrate(store);
  const app = createApp({ store, registry: createRegistry('api-test'), logger: createLogger({ level: 'error' }) });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((r) => server.close(() => r()));
});

afterAll(async () => {
  await close();
  await store.command(`DROP DATABASE IF EXISTS ${database}`);
  await store.close();
});

describe('api skeleton on the real ClickHouse', () => {
  it('answers masterchainInfo 404 before anything is indexed, then the newest and oldest masterchain blocks', async () => {
    const empty = await fetch(`${base}/api/v3/masterchainInfo`);
    expect(empty.status).toBe(404);
    expect(await empty.json()).toEqual({ error: expect.stringContaining('masterchain info not found') });

    const files = ['mc_-1_8000000000000000_17734191.boc', 'mc_-1_8000000000000000_46991999_keyblock.boc', 'mc_-1_8000000000000000_24374597.boc'];
    const blocks = files.map((f) => decodeBlock(readFileSync(join(BLOCKS, f))).block);
    await writeBatch(store, recordBatch({ blocks }));

    const res = await fetch(`${base}/api/v3/masterchainInfo`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { last: Record<string, unknown>; first: { seqno: number } };
    expect(body.last).toMatchObject({ workchain: -1, shard: '8000000000000000', seqno: 46991999, key_block: true, root_hash: blocks[1].root_hash, gen_utime: blocks[1].gen_utime });
    expect(body.first.seqno).toBe(17734191);
    expect(body.last).not.toHaveProperty('value_flow');
    expect(body.last).not.toHaveProperty('prev_refs');
  });

  it('serves health, metrics and a JSON 404 for unknown endpoints', async () => {
    const health = await fetch(`${base}/healthcheck`);
    expect(await health.text()).toBe('OK');
    const missing = await fetch(`${base}/api/v3/nope?x=1`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no such endpoint: GET /api/v3/nope' });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('tonstream_api_request_duration_seconds_count{service="api-test",route="/api/v3/masterchainInfo",status="200"} 1');
  });
});
