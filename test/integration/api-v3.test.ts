import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Address, Cell } from '@ton/core';
import type { BlockRecord } from '@tonstream/records';
import { createLogger, createRegistry } from '@tonstream/runtime';
import { createStore, saveWatermark, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, type Json, okJson, startApi } from './api-server.js';
import { COMMITS, MC, writeMainnetBlocks } from './v3-fixture-data.js';
import { createApp } from '../../services/api/src/app.js';
import { sourcesBlock, sourcesTransactions, tongoOracles } from '../support/mainnet-sources.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_api_v3_${randomBytes(4).toString('hex')}`;

const fileOfMc = (file: string) => Number(Object.entries(COMMITS).find(([, files]) => files.includes(file))![0]);
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const txCount = (files: string[]) => files.reduce((n, f) => n + sourcesBlock(f).transactions, 0);

let store: Store;
let base: string;
let api: ApiUnderTest;
let mcBlocks: Record<number, BlockRecord>;

const get = (path: string, headers?: Record<string, string>) => getJson(base, path, headers);
const ok = <T = Json>(path: string, headers?: Record<string, string>) => okJson<T>(base, path, headers);
const txs = (body: Json) => body.transactions as Json[];
const blocksOf = (body: Json) => body.blocks as Json[];
const settle = () => new Promise((r) => setTimeout(r, 300)); // past the API's watermark cache

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  ({ store, base } = api);
});

afterAll(() => api.stop());

describe('v3 on an empty index', () => {
  it('answers empty lists and 404s, with X-Index-Mc-Seqno 0', async () => {
    const blocks = await get('/api/v3/blocks');
    expect(blocks.status).toBe(200);
    expect(blocks.body).toEqual({ blocks: [] });
    expect(blocks.headers.get('x-index-mc-seqno')).toBe('0');
    expect(await ok('/api/v3/transactions')).toEqual({ transactions: [], address_book: {} });
    expect(await get('/api/v3/masterchainBlockShards?seqno=1')).toMatchObject({ status: 404, body: { error: 'blocks not found' } });
    expect(await get('/api/v3/transactionsByMasterchainBlock?seqno=1')).toMatchObject({ status: 404, body: { error: 'masterchain block 1 not found' } });
  });
});

describe('v3 over the mainnet fixture blocks', () => {
  beforeAll(async () => {
    mcBlocks = await writeMainnetBlocks(store);
    await saveWatermark(store, { mc_seqno: MC.b, gen_utime: Number(mcBlocks[MC.b].gen_utime) });
    await settle();
  });

  it('carries the watermark and the lag on every v3 answer, errors included', async () => {
    for (const path of ['/api/v3/blocks', '/api/v3/transactions?limit=1', '/api/v3/masterchainInfo', '/api/v3/blocks?limit=5000']) {
      const r = await get(path);
      expect(r.headers.get('x-index-mc-seqno')).toBe(String(MC.b));
      const lag = Number(r.headers.get('x-index-lag-seconds'));
      expect(Math.abs(lag - (Math.floor(Date.now() / 1000) - Number(mcBlocks[MC.b].gen_utime)))).toBeLessThanOrEqual(2);
    }
  });

  it('masterchainInfo keeps its behaviour: last = the watermark block, first = the oldest', async () => {
    const body = await ok('/api/v3/masterchainInfo');
    expect(body.last).toMatchObject({ seqno: MC.b, root_hash: b64('1908d071c508674d205fae80f3793faf9448202166f9189769e45d506d1e0b56') });
    expect(body.first).toMatchObject({ seqno: MC.a });
  });

  it('masterchainBlockShards: the blocks a masterchain block commits, 404 above the watermark', async () => {
    const body = await ok(`/api/v3/masterchainBlockShards?seqno=${MC.b}`);
    const blocks = blocksOf(body);
    expect(blocks.map((b) => `${b.workchain}:${b.shard}:${b.seqno}`)).toEqual(['-1:8000000000000000:24374597', '0:8000000000000000:30816553', '0:8000000000000000:40484416', '0:8000000000000000:40484438']);
    expect(blocks.reduce((n, b) => n + (b.tx_count as number), 0)).toBe(txCount(COMMITS[MC.b]));
    expect(blocksOf(await ok(`/api/v3/masterchainBlockShards?seqno=${MC.b}&limit=2&offset=1`)).map((b) => b.seqno)).toEqual([30816553, 40484416]);
    expect(await get(`/api/v3/masterchainBlockShards?seqno=${MC.c}`)).toMatchObject({ status: 404, body: { error: 'blocks not found' } });
    expect((await get('/api/v3/masterchainBlockShards')).body.error).toContain('"seqno"');
  });

  it('masterchainBlockShardState: the shard tops each masterchain block references, served only when stored', async () => {
    // SOURCES.md: 17734191 references 0:8000000000000000 seqno 22738548, 24374597 seqno 29836493, the key block 4 shards.
    const tops = await store.query<{ k: string }>(
      `SELECT concat(toString(mc_seqno), ' ', toString(workchain), ':', hex(shard), ':', toString(seqno)) AS k FROM ${database}.shard_tops FINAL ORDER BY mc_seqno, shard`,
    );
    expect(tops.map((r) => r.k)).toEqual([
      `${MC.a} 0:8000000000000000:22738548`,
      `${MC.b} 0:8000000000000000:29836493`,
      ...['2000000000000000:52077744', '6000000000000000:52097945', 'A000000000000000:51731388', 'E000000000000000:51757085'].map((t) => `${MC.c} 0:${t}`),
    ]);
    // Those shard blocks are not among the fixtures: nothing to serve.
    expect(await get(`/api/v3/masterchainBlockShardState?seqno=${MC.a}`)).toMatchObject({ status: 404, body: { error: 'blocks not found' } });
    expect((await get('/api/v3/masterchainBlockShardState')).body.error).toContain('"seqno"');
  });

  it('blocks: every Block field with its JSON type, no other field', async () => {
    const [block] = blocksOf(await ok(`/api/v3/blocks?workchain=0&seqno=30816553`));
    const types: Record<string, string> = {
      workchain: 'number', shard: 'string', seqno: 'number', root_hash: 'string', file_hash: 'string', global_id: 'number', version: 'number',
      after_merge: 'boolean', before_split: 'boolean', after_split: 'boolean', want_merge: 'boolean', want_split: 'boolean', key_block: 'boolean',
      vert_seqno_incr: 'boolean', flags: 'number', gen_utime: 'string', start_lt: 'string', end_lt: 'string', validator_list_hash_short: 'number',
      gen_catchain_seqno: 'number', min_ref_mc_seqno: 'number', prev_key_block_seqno: 'number', vert_seqno: 'number', master_ref_seqno: 'number',
      rand_seed: 'string', created_by: 'string', tx_count: 'number', masterchain_block_ref: 'object', prev_blocks: 'object',
    };
    for (const [k, t] of Object.entries(types)) expect(typeof block[k], k).toBe(t);
    // Exactly toncenter's Block, in its order: no mc_block_seqno (ton-index-go's Block has none).
    expect(Object.keys(block)).toEqual(Object.keys(types));
    expect(block).toMatchObject({ global_id: -239, root_hash: b64('8d544c9d088891f4d9e368d4dd8f53496652ed31079d6f5dafd2643d25e7cae1'), tx_count: 329 });
    for (const k of ['prev_refs', 'value_flow', 'in_msg_descr_length', 'out_msg_descr_length']) expect(block).not.toHaveProperty(k);
  });

  it('blocks: filters by shard (hex and decimal), hashes, mc_seqno, inclusive time and lt windows, sort, pages', async () => {
    const shardHex = blocksOf(await ok('/api/v3/blocks?workchain=0&shard=8000000000000000&sort=asc'));
    // 71398501 is in that shard too, but above the watermark.
    expect(shardHex.map((b) => b.seqno)).toEqual([30816553, 40484416, 40484438]);
    expect(blocksOf(await ok('/api/v3/blocks?workchain=0&shard=-9223372036854775808&sort=a'))).toEqual(shardHex);
    const rootHex = 'f2bd9e70513e9ad395510c37fa075aad0993a0566efd5ec20f3180e4e8e8d68f';
    for (const form of [rootHex, `0x${rootHex.toUpperCase()}`, Buffer.from(rootHex, 'hex').toString('base64url')]) {
      expect(blocksOf(await ok(`/api/v3/blocks?root_hash=${encodeURIComponent(form)}`)).map((b) => b.seqno)).toEqual([13516764]);
    }
    expect(blocksOf(await ok(`/api/v3/blocks?mc_seqno=${MC.a}&sort=asc`)).map((b) => b.seqno).sort()).toEqual([13516764, 17734191, 4168601].sort());
    expect(blocksOf(await ok(`/api/v3/blocks?mc_seqno=${MC.c}`))).toEqual([]);
    const one = shardHex[1];
    const at = (q: string) => ok(`/api/v3/blocks?workchain=0&shard=8000000000000000&${q}`).then((b) => blocksOf(b).map((x) => x.seqno));
    expect(await at(`start_utime=${one.gen_utime}&end_utime=${one.gen_utime}`)).toEqual([40484416]);
    expect(await at(`start_lt=${one.start_lt}&end_lt=${one.start_lt}`)).toEqual([40484416]);
    expect(await at(`start_lt=${BigInt(one.start_lt as string) + 1n}&end_lt=${one.start_lt}`)).toEqual([]);
    const all = blocksOf(await ok('/api/v3/blocks?limit=100&sort=desc'));
    expect(all.length).toBe(7); // the 7 blocks of mc a and b
    const times = all.map((b) => Number(b.gen_utime));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(blocksOf(await ok('/api/v3/blocks?limit=2&offset=3&sort=desc'))).toEqual(all.slice(3, 5));
    expect(blocksOf(await ok('/api/v3/blocks')).length).toBe(7); // default limit 10 > 7
    expect(blocksOf(await ok('/api/v3/blocks?limit=0')).length).toBe(1);
  });

  it('limit: 10 when a request sends none; API_DEFAULT_LIMIT (the app\'s defaults) changes it, in answers and the OpenAPI document', async () => {
    const ofBlock = 'workchain=0&seqno=30816553';
    expect(sourcesBlock('wc0_8000000000000000_30816553.boc').transactions).toBeGreaterThan(10);
    expect(txs(await ok(`/api/v3/transactions?${ofBlock}`)).length).toBe(10);
    const limitDefault = (doc: Json, path: string) =>
      ((doc.paths as Record<string, { get: { parameters: { name: string; schema: { default?: number } }[] } }>)[path].get.parameters.find((p) => p.name === 'limit')!.schema.default);
    expect(limitDefault(await ok('/api/v3/openapi.json'), '/api/v3/transactions')).toBe(10);

    const app = createApp({ store, registry: createRegistry('api-v3-limit'), logger: createLogger({ level: 'error' }), defaults: { limit: 3 }, checkResponses: 'reject' });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const other = (path: string) => okJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, path);
    try {
      expect(txs(await other(`/api/v3/transactions?${ofBlock}`)).length).toBe(3);
      expect(txs(await other(`/api/v3/transactions?${ofBlock}&limit=5`)).length).toBe(5);
      expect(blocksOf(await other('/api/v3/blocks')).length).toBe(3);
      const doc = await other('/api/v3/openapi.json');
      expect(limitDefault(doc, '/api/v3/transactions')).toBe(3);
      expect(limitDefault(doc, '/api/v3/dns/records')).toBe(100); // fixed by toncenter for DNS records
    } finally {
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });

  it('transactions of a block are the oracle hashes, with the oracle out message counts, in lt order', async () => {
    for (const oracle of tongoOracles()) {
      const blk = oracle.block;
      if (fileOfMc(blk.file) > MC.b) continue;
      const body = await ok(`/api/v3/transactions?workchain=${blk.workchain}&shard=${blk.shard}&seqno=${blk.seqno}&limit=1000`);
      const list = txs(body);
      expect(list.length, blk.file).toBe(blk.transactions);
      expect(new Set(list.map((t) => t.hash))).toEqual(new Set(oracle.txHashes.map(b64)));
      expect(list.reduce((n, t) => n + (t.out_msgs as unknown[]).length, 0), blk.file).toBe(oracle.outMessages);
      const lts = list.map((t) => BigInt(t.lt as string));
      expect(lts.every((lt, i) => i === 0 || lts[i - 1] >= lt)).toBe(true);
    }
  });

  it('transactions.json entries by account, hash (every form), lt, inclusive windows; nothing above the watermark', async () => {
    const entries = sourcesTransactions();
    const below = entries.filter((e) => fileOfMc(e.block_file.replace('blocks/', '')) <= MC.b);
    const above = entries.filter((e) => fileOfMc(e.block_file.replace('blocks/', '')) > MC.b);
    expect(below.length).toBeGreaterThan(5);
    expect(above.length).toBeGreaterThan(5);
    for (const e of below) {
      const raw = e.account.toUpperCase(); // `wc:hex`: only the hex has letters
      const want = { hash: e.hash_base64, lt: e.lt, account: raw };
      const friendly = Address.parseRaw(e.account).toString({ bounceable: false });
      const byAccount = txs(await ok(`/api/v3/transactions?account=${friendly}&lt=${e.lt}`));
      expect(byAccount.map((t) => ({ hash: t.hash, lt: t.lt, account: t.account }))).toEqual([want]);
      for (const form of [e.hash_hex, e.hash_base64, Buffer.from(e.hash_hex, 'hex').toString('base64url')]) {
        const [t] = txs(await ok(`/api/v3/transactions?hash=${encodeURIComponent(form)}`));
        expect(t?.hash).toBe(e.hash_base64);
      }
      const window = txs(await ok(`/api/v3/transactions?account=${raw}&start_lt=${e.lt}&end_lt=${e.lt}&start_utime=${e.now}&end_utime=${e.now}`));
      expect(window.map((t) => [t.hash, t.now])).toEqual([[e.hash_base64, e.now]]);
    }
    for (const e of above) expect(txs(await ok(`/api/v3/transactions?hash=${e.hash_hex}`)), e.category).toEqual([]);
  });

  it('every Transaction and Message field with its JSON type; messages joined, out_msgs by created_lt', async () => {
    const list = txs(await ok('/api/v3/transactions?workchain=0&seqno=30816553&limit=1000'));
    const withOut = list.filter((t) => (t.out_msgs as unknown[]).length > 1);
    expect(withOut.length).toBeGreaterThan(0);
    const tx = list.find((t) => t.in_msg !== null)!;
    const types: Record<string, string> = {
      account: 'string', hash: 'string', lt: 'string', now: 'number', mc_block_seqno: 'number', prev_trans_hash: 'string', prev_trans_lt: 'string',
      orig_status: 'string', end_status: 'string', total_fees: 'string', total_fees_extra_currencies: 'object', description: 'object',
      block_ref: 'object', in_msg: 'object', out_msgs: 'object', emulated: 'boolean', finality: 'string',
    };
    for (const [k, t] of Object.entries(types)) expect(typeof tx[k], k).toBe(t);
    expect(tx).toMatchObject({ emulated: false, finality: 'finalized', mc_block_seqno: MC.b });
    // No account states are stored in this suite: each state is known by its hash alone.
    const unknownState = { balance: null, extra_currencies: null, account_status: null, frozen_hash: null, data_hash: null, code_hash: null };
    for (const k of ['account_state_before', 'account_state_after']) {
      expect(tx[k], k).toEqual({ hash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/), ...unknownState });
    }
    expect(tx).not.toHaveProperty('account_state_hash_before');
    // toncenter's description fields are all `omitempty` (ton-index-go TransactionDescr): no null, no empty map.
    for (const t of list) expect(JSON.stringify(t.description), t.hash as string).not.toMatch(/null|\{\}/);
    expect(list.some((t) => (t.description as Json).compute_ph !== undefined)).toBe(true);
    // Every served BoC is canonical: @ton/core writes each back byte for byte (of 100 transactions: the
    // API runs in this process, and a long synchronous loop here races its keep-alive timer).
    for (const t of list.slice(0, 100)) {
      for (const m of [t.in_msg, ...(t.out_msgs as Json[])] as (Json | null)[]) {
        for (const c of [m?.message_content, m?.init_state] as (Json | null | undefined)[]) {
          if (c) expect(Cell.fromBase64(c.body as string).toBoc().toString('base64')).toBe(c.body);
        }
      }
    }
    const msg = tx.in_msg as Json;
    const mtypes: Record<string, string[]> = {
      hash: ['string'], source: ['string', 'null'], destination: ['string'], value: ['string', 'null'], value_extra_currencies: ['object'],
      fwd_fee: ['string', 'null'], ihr_fee: ['string', 'null'], extra_flags: ['null'], import_fee: ['string', 'null'], created_lt: ['string', 'null'], created_at: ['string', 'null'],
      opcode: ['string', 'null'], decoded_opcode: ['string', 'null'], ihr_disabled: ['boolean', 'null'], bounce: ['boolean', 'null'], bounced: ['boolean', 'null'],
      message_content: ['object'], init_state: ['object', 'null'],
    };
    // extra_flags only null: block 30816553 was made under global version 3, before the field (12).
    const typeOf = (v: unknown) => (v === null ? 'null' : typeof v);
    for (const [k, ts] of Object.entries(mtypes)) expect(ts, k).toContain(typeOf(msg[k]));
    expect(msg.destination).toBe(tx.account);
    expect(typeof (msg.message_content as Json).body).toBe('string');
    for (const k of ['direction', 'tx_hash', 'tx_lt']) expect(msg).not.toHaveProperty(k);
    for (const t of withOut) {
      const lts = (t.out_msgs as Json[]).map((m) => BigInt(m.created_lt as string));
      expect(lts).toEqual([...lts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      for (const m of t.out_msgs as Json[]) expect(m.source).toBe(t.account);
    }
  });

  it('address_book: every account, source and destination, user-friendly per @ton/core; X-No-Address-Book gives {}', async () => {
    const body = await ok('/api/v3/transactions?workchain=0&seqno=40484416&limit=50');
    const book = body.address_book as Record<string, { user_friendly: string; domain: null }>;
    const expected = new Set<string>();
    for (const t of txs(body)) {
      expected.add(t.account as string);
      const src = (t.in_msg as Json | null)?.source;
      if (typeof src === 'string') expected.add(src);
      for (const m of t.out_msgs as Json[]) if (typeof m.destination === 'string') expected.add(m.destination);
    }
    expect(new Set(Object.keys(book))).toEqual(expected);
    for (const [raw, row] of Object.entries(book)) {
      const parsed = Address.parseFriendly(row.user_friendly);
      expect(parsed.address.toRawString().toUpperCase()).toBe(raw.toUpperCase());
      // No account states stored: no code known, so non-bounceable, mainnet.
      expect(parsed.isBounceable).toBe(false);
      expect(parsed.isTestOnly).toBe(false);
      expect(row.domain).toBeNull();
    }
    expect((await ok('/api/v3/transactions?workchain=0&seqno=40484416&limit=5', { 'X-No-Address-Book': 'true' })).address_book).toEqual({});
    // A page shared per watermark is kept per request as sent: the same URL with and without the header
    // answers each its own way, in any order; a bad X-Timeout is refused even when the answer is made.
    const shared = '/api/v3/transactions?workchain=0&seqno=40484416&limit=3';
    const full = await ok(shared);
    expect(Object.keys(full.address_book as Json).length).toBeGreaterThan(0);
    expect((await ok(shared, { 'X-No-Address-Book': 'true' })).address_book).toEqual({});
    expect(await ok(shared)).toEqual(full);
    expect(await get(shared, { 'X-Timeout': 'soon' })).toMatchObject({ status: 422, body: { error: expect.stringContaining('X-Timeout') } });
  });

  it('transactions: sort, limit/offset pages, mc_seqno, 404 for a masterchain block not indexed', async () => {
    const asc = txs(await ok(`/api/v3/transactions?mc_seqno=${MC.b}&limit=1000&sort=asc`));
    expect(asc.length).toBe(1000);
    const lts = asc.map((t) => BigInt(t.lt as string));
    expect(lts.every((lt, i) => i === 0 || lts[i - 1] <= lt)).toBe(true);
    const page = txs(await ok(`/api/v3/transactions?mc_seqno=${MC.b}&limit=7&offset=13&sort=asc`));
    expect(page.map((t) => t.hash)).toEqual(asc.slice(13, 20).map((t) => t.hash));
    expect(await get(`/api/v3/transactions?mc_seqno=${MC.c}`)).toMatchObject({ status: 404, body: { error: `masterchain block ${MC.c} not found` } });
    expect(txs(await ok('/api/v3/transactions?account=0:' + 'AB'.repeat(32)))).toEqual([]);
  });

  it('transactionsByMasterchainBlock: every transaction of the committed blocks, paged', async () => {
    const total = txCount(COMMITS[MC.b]);
    expect(total).toBe(1323);
    const first = txs(await ok(`/api/v3/transactionsByMasterchainBlock?seqno=${MC.b}&limit=1000`));
    const rest = txs(await ok(`/api/v3/transactionsByMasterchainBlock?seqno=${MC.b}&limit=1000&offset=1000`));
    expect(first.length + rest.length).toBe(total);
    expect(new Set([...first, ...rest].map((t) => t.hash)).size).toBe(total);
    const lts = [...first, ...rest].map((t) => BigInt(t.lt as string));
    expect(lts.every((lt, i) => i === 0 || lts[i - 1] >= lt)).toBe(true);
    const small = txs(await ok(`/api/v3/transactionsByMasterchainBlock?seqno=${MC.a}&limit=1000`));
    expect(small.length).toBe(txCount(COMMITS[MC.a]));
    expect(await get(`/api/v3/transactionsByMasterchainBlock?seqno=${MC.c}`)).toMatchObject({ status: 404, body: { error: `masterchain block ${MC.c} not found` } });
  });

  it('bad input: 422 naming the parameter, never 5xx; strict params; the server keeps serving', async () => {
    const cases: [string, string][] = [
      ['/api/v3/blocks?limit=1001', 'limit'],
      ['/api/v3/blocks?workchain=abc', 'workchain'],
      ['/api/v3/blocks?shard=zz', 'shard'],
      ['/api/v3/blocks?root_hash=%00', 'root_hash'],
      ['/api/v3/blocks?sort=up', 'sort'],
      ['/api/v3/transactions?account=%ED%A0%80', 'account'],
      [`/api/v3/transactions?account=${encodeURIComponent("0:' OR 1=1 --")}`, 'account'],
      [`/api/v3/transactions?hash=${'a'.repeat(10_000)}`, 'hash'],
      ['/api/v3/transactions?lt=-1', 'lt'],
      ['/api/v3/transactions?start_utime=yesterday', 'start_utime'],
      ['/api/v3/transactionsByMasterchainBlock', 'seqno'],
      ['/api/v3/transactions?x_timeout=0', 'x_timeout'],
    ];
    for (const [path, name] of cases) {
      const r = await get(path);
      expect(r.status, path.slice(0, 80)).toBe(422);
      expect(r.body.error, path.slice(0, 80)).toContain(name);
    }
    expect((await get('/api/v3/blocks?owner_id=1')).status).toBe(200);
    const strict = await get('/api/v3/blocks?owner_id=1&limit=1', { 'X-Strict-Params': 'true' });
    expect(strict).toMatchObject({ status: 422, body: { error: 'unknown parameter "owner_id"' } });
    expect((await get('/api/v3/blocks?limit=1&x_timeout=500&api_key=k', { 'X-Strict-Params': 'true' })).status).toBe(200);
    expect(blocksOf(await ok('/api/v3/blocks?limit=1')).length).toBe(1);
  });

  it('openapi.json is generated from the declarations', async () => {
    const doc = await ok('/api/v3/openapi.json');
    const paths = doc.paths as Record<string, { get: { parameters: { name: string; required: boolean; schema: Json }[]; responses: Json } }>;
    // Every endpoint family adds its paths (accounts: api-v3-accounts.test.ts); these are the foundation's.
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/api/v3/blocks', '/api/v3/masterchainBlockShards', '/api/v3/masterchainInfo', '/api/v3/transactions', '/api/v3/transactionsByMasterchainBlock']));
    const names = paths['/api/v3/blocks'].get.parameters.map((p) => p.name);
    for (const n of ['workchain', 'shard', 'seqno', 'root_hash', 'file_hash', 'mc_seqno', 'start_utime', 'end_utime', 'start_lt', 'end_lt', 'limit', 'offset', 'sort', 'x_timeout']) expect(names).toContain(n);
    const account = paths['/api/v3/transactions'].get.parameters.find((p) => p.name === 'account')!;
    expect(account.schema.type).toBe('array');
    expect(paths['/api/v3/masterchainBlockShards'].get.parameters.find((p) => p.name === 'seqno')!.required).toBe(true);
    expect(paths['/api/v3/blocks'].get.parameters.find((p) => p.name === 'limit')!.schema).toMatchObject({ default: 10, maximum: 1000 });
    expect(Object.keys((doc.components as { schemas: Json }).schemas)).toEqual(expect.arrayContaining(['Block', 'Transaction', 'Message', 'TransactionsResponse', 'AddressBookRow']));
  });

  it('a query over X-Timeout answers 504; ClickHouse down answers 503', async () => {
    // 1 ms cannot cover a round trip to ClickHouse and a FINAL scan of every transaction.
    const slow = await get('/api/v3/transactions?limit=1000&sort=asc', { 'X-Timeout': '1' });
    expect(slow.status).toBe(504);
    expect(slow.body.error).toContain('timeout');
    const down = createStore({ url: 'http://127.0.0.1:1', database });
    const app = createApp({ store: down, registry: createRegistry('api-v3-down'), logger: createLogger({ level: 'error' }), checkResponses: 'reject' });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3/blocks`);
      expect(res.status).toBe(503);
    } finally {
      await new Promise((r) => server.close(() => r(undefined)));
      await down.close();
    }
  });

  it('raising the watermark serves the blocks above it', async () => {
    await saveWatermark(store, { mc_seqno: MC.c, gen_utime: Number(mcBlocks[MC.c].gen_utime) });
    await settle();
    const e = sourcesTransactions().find((x) => x.block_file.endsWith('71398501.boc'))!;
    expect(txs(await ok(`/api/v3/transactions?hash=${e.hash_hex}`)).map((t) => t.lt)).toEqual([e.lt]);
    const shards = blocksOf(await ok(`/api/v3/masterchainBlockShards?seqno=${MC.c}`));
    expect(shards.length).toBe(5);
    // As toncenter orders them (ton-index-go: ORDER BY workchain, shard, seqno over a signed bigint):
    // shard 0x8000... is -2^63, so it and 0xa000... come before 0x6000...
    expect(shards.map((b) => `${b.workchain}:${b.shard}:${b.seqno}`)).toEqual([
      '-1:8000000000000000:46991999', '0:8000000000000000:71398501', '0:A000000000000000:54302203', '0:A000000000000000:54302208', '0:6000000000000000:52111590',
    ]);
    expect(txs(await ok(`/api/v3/transactionsByMasterchainBlock?seqno=${MC.c}&limit=1000`)).length).toBe(txCount(COMMITS[MC.c]));
  });
});
