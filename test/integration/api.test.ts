import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock } from '@tonstream/block';
import { recordBatch, saveWatermark, type Store, writeBatch } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, startApi } from './api-server.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const BLOCKS = join(import.meta.dirname, '../fixtures/mainnet/blocks');
const database = `tonstream_api_${randomBytes(4).toString('hex')}`;
let store: Store;
let base: string;
let api: ApiUnderTest;

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  ({ store, base } = api);
});

afterAll(() => api.stop());

describe('api skeleton on the real ClickHouse', () => {
  it('answers masterchainInfo 404 until a watermark exists, then the watermark block and the oldest, never a block above it', async () => {
    const empty = await fetch(`${base}/api/v3/masterchainInfo`);
    expect(empty.status).toBe(404);
    expect(await empty.json()).toEqual({ error: expect.stringContaining('masterchain info not found') });

    const files = ['mc_-1_8000000000000000_17734191.boc', 'mc_-1_8000000000000000_46991999_keyblock.boc', 'mc_-1_8000000000000000_24374597.boc'];
    const blocks = files.map((f) => decodeBlock(readFileSync(join(BLOCKS, f))).block);
    await writeBatch(store, recordBatch({ blocks }));
    // Stored but not yet under the watermark: not indexed.
    await new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache
    expect((await fetch(`${base}/api/v3/masterchainInfo`)).status).toBe(404);

    await saveWatermark(store, { mc_seqno: 24374597, gen_utime: Number(blocks[2].gen_utime) });
    await new Promise((r) => setTimeout(r, 300));
    const res = await fetch(`${base}/api/v3/masterchainInfo`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-index-mc-seqno')).toBe('24374597');
    const body = (await res.json()) as { last: Record<string, unknown>; first: { seqno: number } };
    // 46991999 is stored too, but above the watermark.
    expect(body.last).toMatchObject({ workchain: -1, shard: '8000000000000000', seqno: 24374597, root_hash: blocks[2].root_hash, gen_utime: blocks[2].gen_utime });
    expect(body.first.seqno).toBe(17734191);
    expect(body.last).not.toHaveProperty('value_flow');
    expect(body.last).not.toHaveProperty('prev_refs');

    await saveWatermark(store, { mc_seqno: 46991999, gen_utime: Number(blocks[1].gen_utime) });
    await new Promise((r) => setTimeout(r, 300));
    const later = (await (await fetch(`${base}/api/v3/masterchainInfo`)).json()) as { last: Record<string, unknown> };
    expect(later.last).toMatchObject({ seqno: 46991999, key_block: true, root_hash: blocks[1].root_hash });
  });

  it('serves health, metrics and a JSON 404 for unknown endpoints', async () => {
    const health = await fetch(`${base}/healthcheck`);
    expect(await health.text()).toBe('OK');
    const missing = await fetch(`${base}/api/v3/nope?x=1`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no such endpoint: GET /api/v3/nope' });
    const served = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('tonstream_api_request_duration_seconds_count{service="api",route="/api/v3/masterchainInfo",status="200"}'));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const before = await served();
    await fetch(`${base}/api/v3/masterchainInfo`);
    expect(await served()).toBe(before + 1);
  });
});
