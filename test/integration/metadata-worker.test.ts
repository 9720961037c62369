import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, type Cell, Dictionary } from '@ton/core';
import { readJettonMasterData, readNftCollectionData, readNftItemData } from '@tonstream/contracts';
import { createStore, migrate, readMetadataEntries, saveHistoryFloor, saveWatermark, type MetadataEntry, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, okJson, startApi } from './api-server.js';
import { HUGE_BYTES, type MetadataServer, startMetadataServer } from '../support/metadata-server.js';
import { eventually, freePort, type ServiceProcess, startService } from '../support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { raw } from '../support/ledger.js';

/*
 * The metadata worker (services/metadata, the built process) against a local metadata host serving
 * good, slow (30 s), huge (100 MB), malformed and redirect-looping documents, over token states made
 * of real TEP-64 / TEP-74 / TEP-62 cells read by @tonstream/contracts, in a fresh database of the real
 * ClickHouse, with the API in process. Needs `npx tsc -b` (it starts services/metadata/dist/main.js).
 */

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const run = randomBytes(4).toString('hex');
const database = `tonstream_metadata_${run}`;
const logDir = mkdtempSync(join(tmpdir(), 'tonstream-metadata-'));
const TIMEOUT_MS = 1_500;
const MAX_BYTES = 1_048_576;

const GOOD = { name: 'Good Jetton', symbol: 'GOOD', description: 'served by the local host', image: 'https://example.org/good.png', decimals: '6', social: ['https://t.me/good'] };
const SEMI = { name: 'off-chain name', symbol: 'SEMI', image: 'https://example.org/semi.png' };
const COLLECTION = { name: 'Test Collection', description: 'common content + individual part', image: 'https://example.org/c.png' };
const ITEM = { name: 'Item #1', image: 'https://example.org/1.png', attributes: [{ trait_type: 'level', value: 3 }] };
const IPFS = { name: 'From IPFS', symbol: 'IPF' };
const FLAKY = { name: 'Second try', symbol: 'FLK' };
const HANG = { name: 'After restart', symbol: 'HNG' };
/** Hosts of a loopback listener in the spellings the SSRF review named (and cloud metadata, NAT64, 6to4, site-local, multicast), each with the listener's port. */
const HOSTILE_HOSTS = [
  '127.0.0.1', 'localhost', '2130706433', '0177.0.0.1', '0x7f.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::1]', '0.0.0.0',
  '169.254.169.254', '[::ffff:a9fe:a9fe]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[fec0::1]', '[ff02::1]', '224.0.0.1',
];

const newAddress = () => new Address(0, randomBytes(32));
const offChain = (uri: string) => beginCell().storeUint(1, 8).storeStringTail(uri).endCell();
const snake = (text: string) => beginCell().storeUint(0, 8).storeStringTail(text).endCell();
function onChain(entries: Record<string, string>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [k, v] of Object.entries(entries)) dict.set(BigInt('0x' + createHash('sha256').update(k).digest('hex')), snake(v));
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}
const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));
const state = (data: Cell, mcSeqno: number) => ({ code_hash: 'code', data_hash: data.hash().toString('base64'), last_trans_lt: 1, mc_block_seqno: mcSeqno });

/** A Jetton master row as the writer derives it: a TEP-74 minter's data read by @tonstream/contracts. */
function masterRow(address: Address, content: Cell, mcSeqno: number) {
  const data = beginCell().storeCoins(1_000_000n).storeAddress(newAddress()).storeRef(content).storeRef(beginCell().storeUint(7, 8).endCell()).endCell();
  const m = readJettonMasterData(data)!;
  return { address: raw(address), total_supply: m.total_supply, mintable: 1, admin_address: m.admin_address ?? '', jetton_content: json(m.jetton_content), jetton_wallet_code_hash: m.jetton_wallet_code_hash, ...state(data, mcSeqno) };
}

type Metadata = Record<string, { is_indexed: boolean; token_info: Record<string, unknown>[] }>;

describe('metadata worker with a local metadata host', () => {
  let api: ApiUnderTest;
  let host: MetadataServer;
  let worker: ServiceProcess;
  let metricsPort: number;
  const masters: Record<string, Address> = {};
  const collection = newAddress();
  const item = newAddress();
  const wallet = newAddress();
  const uris: Record<string, string> = {};
  /** A listener on 127.0.0.1 (not the gateway's origin) that hostile URIs aim at; counts connections. */
  let victim: Server;
  let victimConnections = 0;
  const hostile: Record<string, { uri: string; reason: string }> = {};

  const startWorker = async () => {
    metricsPort = await freePort();
    const w = startService('metadata', {
      CLICKHOUSE_URL, CLICKHOUSE_DATABASE: database, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info',
      METADATA_TIMEOUT_MS: String(TIMEOUT_MS), METADATA_MAX_BYTES: String(MAX_BYTES), METADATA_MAX_REDIRECTS: '3',
      METADATA_MAX_ATTEMPTS: '2', METADATA_RETRY_BASE_MS: '200', METADATA_RETRY_MAX_MS: '400', METADATA_HOST_RATE: '100',
      METADATA_POLL_INTERVAL_MS: '200', METADATA_IPFS_GATEWAY: `${host.base}/gateway/ipfs/`, METADATA_DANGEROUSLY_ALLOW_PRIVATE_GATEWAY: 'true',
    }, logDir);
    await w.waitFor(/metadata worker started/, 30_000);
    return w;
  };
  const metadataOf = (addresses: Address[]) => okJson<Metadata>(api.base, `/api/v3/metadata?${addresses.map((a) => `address=${encodeURIComponent(raw(a))}`).join('&')}`);
  const cached = async (uri: string): Promise<MetadataEntry | undefined> => (await readMetadataEntries(api.store, [uri])).get(uri);
  const final = (uri: string) => eventually(`an outcome for ${uri}`, async () => {
    const e = await cached(uri);
    return e && (e.status === 'ok' || e.status === 'failed') ? e : undefined;
  }, 20_000, 100);
  const health = async () => (await (await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`)).json()) as { status: string; reasons: string[] };

  beforeAll(async () => {
    host = await startMetadataServer({ '/good.json': GOOD, '/semi.json': SEMI, '/collection.json': COLLECTION, '/items/1.json': ITEM, '/gateway/ipfs/QmTestCid/meta.json': IPFS, '/flaky-document': FLAKY, '/hang-once-document': HANG });
    victim = createServer((req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"leaked"}')).listen(0, '127.0.0.1');
    victim.on('connection', () => victimConnections++);
    await new Promise((r) => victim.once('listening', r));
    const victimPort = (victim.address() as AddressInfo).port;
    for (const h of HOSTILE_HOSTS) hostile[h] = { uri: `http://${h}:${victimPort}/?query=SELECT%201`, reason: 'private_address' };
    // The gateway's origin may be private; where it redirects may not. An ipfs:// URI stays on the gateway.
    hostile.redirect = { uri: `${host.base}/redirect?to=${encodeURIComponent(`http://[::ffff:7f00:1]:${victimPort}/`)}`, reason: 'private_address' };
    hostile.ipfs = { uri: `ipfs://http://127.0.0.1:${victimPort}/?query=SELECT%201`, reason: 'bad_uri' };
    api = await startApi(CLICKHOUSE_URL, database);
    const paths = { good: '/good.json', semi: '/semi.json', slow: '/slow.json', huge: '/huge.json', malformed: '/malformed.json', loop: '/loop/0', flaky: '/flaky.json' };
    for (const [name, path] of Object.entries(paths)) uris[name] = `${host.base}${path}`;
    uris.ipfs = 'ipfs://QmTestCid/meta.json';
    const rows = Object.keys(uris).map((name) => {
      masters[name] = newAddress();
      const content = name === 'semi' ? onChain({ uri: uris.semi, name: 'On-chain Name', decimals: '2' }) : offChain(uris[name]);
      return masterRow(masters[name], content, 2);
    });
    for (const { uri } of Object.values(hostile)) rows.push(masterRow(newAddress(), offChain(uri), 2));
    await api.store.insert('jetton_masters', rows);
    await api.store.insert('jetton_wallets', [{ address: raw(wallet), jetton: raw(masters.good), owner: raw(newAddress()), balance: '42', code_hash: 'w', data_hash: 'w', last_trans_lt: 1, mc_block_seqno: 2 }]);

    const collectionData = beginCell().storeAddress(newAddress()).storeUint(2, 64)
      .storeRef(beginCell().storeRef(offChain(`${host.base}/collection.json`)).storeRef(beginCell().storeStringTail(`${host.base}/items/`).endCell()).endCell())
      .storeRef(beginCell().storeUint(1, 8).endCell()).storeRef(beginCell().storeUint(2, 8).endCell()).endCell();
    const c = readNftCollectionData(collectionData)!;
    await api.store.insert('nft_collections', [{ address: raw(collection), owner_address: c.owner_address ?? '', next_item_index: c.next_item_index, collection_content: json(c.collection_content), common_content: c.common_content ?? '', ...state(collectionData, 3) }]);
    const itemData = beginCell().storeUint(1, 64).storeAddress(collection).storeAddress(newAddress()).storeRef(beginCell().storeStringTail('1.json').endCell()).endCell();
    const i = readNftItemData(itemData)!;
    await api.store.insert('nft_items', [{ address: raw(item), init: 1, item_index: i.index, collection_address: i.collection_address ?? '', owner_address: i.owner_address ?? '', content: json(i.content), individual_content: i.individual_content ?? '', ...state(itemData, 3) }]);
    await saveWatermark(api.store, { mc_seqno: 5, gen_utime: Math.floor(Date.now() / 1000) });
  });

  afterAll(async () => {
    await worker?.stop();
    await host?.close();
    await new Promise((r) => victim?.close(r));
    await api?.stop();
  });

  it('before any fetch the API answers at once with is_indexed: false and the type only', async () => {
    const m = await metadataOf([masters.good, item]);
    expect(m[raw(masters.good)]).toEqual({ is_indexed: false, token_info: [{ type: 'jetton_masters' }] });
    expect(m[raw(item)]).toEqual({ is_indexed: false, token_info: [{ type: 'nft_items', nft_index: '1' }] });
  });

  it('a good URI appears in /metadata and in a response\'s metadata within seconds', async () => {
    const started = Date.now();
    worker = await startWorker();
    // While the slow document's first request is held by the host, the API answers without waiting for it.
    await eventually('the slow request', async () => (host.hits('/slow.json') >= 1 ? true : undefined), 10_000, 20);
    const whileSlow = await metadataOf([masters.slow]);
    expect(whileSlow[raw(masters.slow)]).toEqual({ is_indexed: false, token_info: [{ type: 'jetton_masters' }] });
    expect(['pending', 'retry']).toContain((await cached(uris.slow))?.status);
    const m = await eventually('the good master indexed', async () => {
      const got = await metadataOf([masters.good]);
      return got[raw(masters.good)]?.is_indexed ? got : undefined;
    }, 10_000, 100);
    console.log(`good metadata served ${Date.now() - started} ms after the worker process was started`);
    const { name, symbol, description, image, ...rest } = GOOD;
    expect(m[raw(masters.good)]).toEqual({ is_indexed: true, token_info: [{ valid: true, type: 'jetton_masters', name, symbol, description, image, extra: { ...rest, uri: uris.good } }] });

    // The side object of other responses: a Jetton wallet brings its master.
    const wallets = await okJson<{ metadata: Metadata }>(api.base, `/api/v3/jetton/wallets?address=${encodeURIComponent(raw(wallet))}`);
    expect(wallets.metadata[raw(masters.good)]).toEqual(m[raw(masters.good)]);
    expect(wallets.metadata[raw(wallet)].token_info[0]).toMatchObject({ type: 'jetton_wallets', extra: { jetton: raw(masters.good), balance: '42' } });
    const mastersAnswer = await okJson<{ metadata: Metadata }>(api.base, `/api/v3/jetton/masters?address=${encodeURIComponent(raw(masters.good))}`);
    expect(mastersAnswer.metadata[raw(masters.good)]).toEqual(m[raw(masters.good)]);
    expect((await okJson<{ metadata: Metadata }>(api.base, `/api/v3/jetton/masters?address=${encodeURIComponent(raw(masters.good))}`, { 'X-No-Metadata': 'true' })).metadata).toEqual({});
  });

  it('semi-chain content: the document under the on-chain keys; ipfs:// through the gateway; an NFT item at common + individual content', async () => {
    for (const name of ['semi', 'ipfs']) expect((await final(uris[name])).status).toBe('ok');
    const itemUri = `${host.base}/items/1.json`;
    expect((await final(itemUri)).status).toBe('ok');
    expect((await final(`${host.base}/collection.json`)).status).toBe('ok');
    const m = await metadataOf([masters.semi, masters.ipfs, item, collection]);
    expect(m[raw(masters.semi)].token_info).toEqual([{ valid: true, type: 'jetton_masters', name: 'On-chain Name', symbol: SEMI.symbol, image: SEMI.image, extra: { decimals: '2', uri: uris.semi } }]);
    expect(m[raw(masters.ipfs)].token_info[0]).toMatchObject({ valid: true, name: IPFS.name, symbol: IPFS.symbol });
    expect(host.hits('/gateway/ipfs/QmTestCid/meta.json')).toBe(1);
    expect(m[raw(item)]).toEqual({ is_indexed: true, token_info: [{ valid: true, type: 'nft_items', nft_index: '1', name: ITEM.name, image: ITEM.image, extra: { attributes: ITEM.attributes, uri: itemUri } }] });
    expect(m[raw(collection)].token_info[0]).toMatchObject({ valid: true, type: 'nft_collections', name: COLLECTION.name, description: COLLECTION.description });
  });

  it('slow, huge, malformed and redirect-looping URIs are each marked failed with the reason; the worker stays healthy', async () => {
    const expected: Record<string, string> = { slow: 'timeout', huge: 'too_large', malformed: 'bad_json', loop: 'too_many_redirects' };
    for (const [name, reason] of Object.entries(expected)) {
      const e = await final(uris[name]);
      expect({ name, status: e.status, reason: e.reason }).toEqual({ name, status: 'failed', reason });
    }
    // Timeouts are transient: tried METADATA_MAX_ATTEMPTS times; the others are final at once.
    expect(host.hits('/slow.json')).toBe(2);
    expect(host.hits('/malformed.json')).toBe(1);
    expect(host.hits('/loop/0')).toBe(1);
    expect(host.hits('/loop/4')).toBe(0); // 3 redirects followed (/loop/1..3), the 4th refused
    // Streamed and aborted: the server wrote a few MiB of socket buffers at most, never the 100 MB.
    console.log(`huge document: the worker let ${host.hugeBytesSent()} of ${HUGE_BYTES} bytes be written`);
    expect(host.hugeBytesSent()).toBeLessThan(16 * MAX_BYTES);
    const m = await metadataOf(Object.keys(expected).map((n) => masters[n]));
    for (const name of Object.keys(expected)) expect(m[raw(masters[name])]).toEqual({ is_indexed: true, token_info: [{ valid: false, type: 'jetton_masters', extra: { uri: uris[name] } }] });
    expect(await health()).toEqual(expect.objectContaining({ status: 'ok', reasons: [] }));
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const reason of Object.values(expected)) expect(metrics).toMatch(new RegExp(`tonstream_metadata_failed_total\\{reason="${reason}"[^}]*\\} 1\\n`));
    expect(metrics).toMatch(/tonstream_metadata_attempt_errors_total\{reason="timeout"[^}]*\} 2\n/);
  });

  it('SSRF: a URI aimed at a non-public address in any spelling, through a redirect or out of ipfs:// fails, and the listener never sees a connection', async () => {
    const outcomes: Record<string, string> = {};
    for (const [name, { uri }] of Object.entries(hostile)) {
      const e = await final(uri);
      outcomes[name] = `${e.status} ${e.reason}`;
    }
    expect(outcomes).toEqual(Object.fromEntries(Object.entries(hostile).map(([name, { reason }]) => [name, `failed ${reason}`])));
    expect(victimConnections).toBe(0);
    expect(host.hits('/redirect')).toBe(1);
  });

  it('a transient failure (503) is retried after a backoff and then cached', async () => {
    const e = await final(uris.flaky);
    expect({ status: e.status, attempts: e.attempts }).toEqual({ status: 'ok', attempts: 2 });
    expect(JSON.parse(e.content)).toEqual(FLAKY);
    expect(host.hits('/flaky.json')).toBe(2);
  });

  it('kill -9 mid-fetch: the entry stays pending, the restarted worker fetches it; nothing fetched before is fetched again', async () => {
    const hang = newAddress();
    const uri = `${host.base}/hang-once.json`;
    await api.store.insert('jetton_masters', [masterRow(hang, offChain(uri), 6)]);
    await saveWatermark(api.store, { mc_seqno: 6, gen_utime: Math.floor(Date.now() / 1000) });
    await eventually('the hanging request', async () => (host.hits('/hang-once.json') === 1 ? true : undefined), 10_000, 20);
    await worker.kill9();
    expect((await cached(uri))?.status).toBe('pending');
    const before = { good: host.hits('/good.json'), slow: host.hits('/slow.json'), huge: host.hits('/huge.json') };
    worker = await startWorker();
    const e = await final(uri);
    expect({ status: e.status, content: JSON.parse(e.content) as unknown }).toEqual({ status: 'ok', content: HANG });
    expect((await metadataOf([hang]))[raw(hang)].token_info[0]).toMatchObject({ valid: true, name: HANG.name });
    await new Promise((r) => setTimeout(r, 1_000)); // a few polls of the restarted worker
    expect({ good: host.hits('/good.json'), slow: host.hits('/slow.json'), huge: host.hits('/huge.json') }).toEqual(before);
    expect(await health()).toEqual(expect.objectContaining({ status: 'ok' }));
  });
});

describe('metadata worker and a backfill', () => {
  // Runs after the suite above has stopped its worker: a worker of its own over a database of its own.
  let api: ApiUnderTest;
  let host: MetadataServer;
  let worker: ServiceProcess | undefined;

  beforeAll(async () => {
    host = await startMetadataServer({ '/recent.json': GOOD, '/backfilled.json': SEMI });
    api = await startApi(CLICKHOUSE_URL, `${database}_history`);
    await api.store.insert('jetton_masters', [masterRow(newAddress(), offChain(`${host.base}/recent.json`), 20)]);
    await saveWatermark(api.store, { mc_seqno: 20, gen_utime: Math.floor(Date.now() / 1000) });
    await saveHistoryFloor(api.store, 10);
    worker = startService('metadata', {
      CLICKHOUSE_URL, CLICKHOUSE_DATABASE: `${database}_history`, METRICS_PORT: String(await freePort()), METADATA_POLL_INTERVAL_MS: '200', METADATA_HOST_RATE: '100',
      // The metadata host is on 127.0.0.1: allowed as the gateway's origin only.
      METADATA_IPFS_GATEWAY: `${host.base}/gateway/ipfs/`, METADATA_DANGEROUSLY_ALLOW_PRIVATE_GATEWAY: 'true',
    }, logDir);
    await worker.waitFor(/metadata worker started/, 30_000);
  });

  afterAll(async () => {
    await worker?.stop();
    await host?.close();
    await api?.stop();
  });

  it('a token first seen in a backfilled range is fetched once the history floor moves below it', async () => {
    const outcome = (uri: string) => eventually(`an outcome for ${uri}`, async () => {
      const e = (await readMetadataEntries(api.store, [uri])).get(uri);
      return e && e.status === 'ok' ? e : undefined;
    }, 20_000, 100);
    await outcome(`${host.base}/recent.json`);
    // A backfill lane writes below the floor: the worker's forward scan is past it already.
    const uri = `${host.base}/backfilled.json`;
    await api.store.insert('jetton_masters', [masterRow(newAddress(), offChain(uri), 5)]);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await readMetadataEntries(api.store, [uri])).get(uri), 'not while below the floor').toBeUndefined();
    expect(host.hits('/backfilled.json')).toBe(0);
    await saveHistoryFloor(api.store, 1);
    expect(JSON.parse((await outcome(uri)).content)).toEqual(SEMI);
    expect(host.hits('/backfilled.json')).toBe(1);
  });
});

describe('metadata worker while ClickHouse is down', () => {
  const DOCUMENTS = 60;
  const CONCURRENCY = 4;
  const MAX_UNFLUSHED = 12;
  const outageDatabase = `${database}_outage`;
  const documentPath = (i: number) => `/held/${i}.json`;
  let host: MetadataServer;
  let proxy: TcpProxy;
  let store: Store;
  let worker: ServiceProcess;
  let metricsPort: number;

  const totalHits = () => Array.from({ length: DOCUMENTS }, (_, i) => host.hits(documentPath(i))).reduce((a, b) => a + b, 0);
  const health = async () => (await (await fetch(`http://127.0.0.1:${metricsPort}/healthcheck`)).json()) as { status: string; details: { unflushed: number } };
  const flushFailures = () => worker.output().split('\n').filter((line) => line.includes('could not store metadata outcomes')).length;

  beforeAll(async () => {
    host = await startMetadataServer(Object.fromEntries(Array.from({ length: DOCUMENTS }, (_, i) => [documentPath(i), { name: `Held ${i}` }])));
    store = createStore({ url: CLICKHOUSE_URL, database: outageDatabase });
    await migrate(store);
    await store.insert('jetton_masters', Array.from({ length: DOCUMENTS }, (_, i) => masterRow(newAddress(), offChain(`${host.base}${documentPath(i)}`), 2)));
    await saveWatermark(store, { mc_seqno: 2, gen_utime: Math.floor(Date.now() / 1000) });
    proxy = await startTcpProxy(new URL(CLICKHOUSE_URL));
    metricsPort = await freePort();
    worker = startService('metadata', {
      CLICKHOUSE_URL: `http://127.0.0.1:${proxy.port}`, CLICKHOUSE_DATABASE: outageDatabase, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info',
      METADATA_CONCURRENCY: String(CONCURRENCY), METADATA_MAX_UNFLUSHED: String(MAX_UNFLUSHED), METADATA_HOST_RATE: '10000', METADATA_POLL_INTERVAL_MS: '200',
      METADATA_IPFS_GATEWAY: `${host.base}/ipfs/`, METADATA_DANGEROUSLY_ALLOW_PRIVATE_GATEWAY: 'true',
    }, logDir);
    await worker.waitFor(/metadata worker started/, 30_000);
  });

  afterAll(async () => {
    await worker?.stop();
    await proxy?.close();
    await host?.close();
    await store?.command(`DROP DATABASE IF EXISTS ${outageDatabase}`);
    await store?.close();
  });

  it('fetching pauses once METADATA_MAX_UNFLUSHED outcomes wait for ClickHouse; all are written when it is back, each fetched once', async () => {
    // Every URI is pending in the store and the first fetches are held by the host: then ClickHouse goes away.
    await eventually('the first fetches', async () => (host.held() === CONCURRENCY ? true : undefined), 20_000, 20);
    proxy.setDown(true);
    host.release();
    await eventually('the buffer full', async () => ((await health()).details.unflushed >= MAX_UNFLUSHED ? true : undefined), 20_000, 20);
    const fetched = totalHits();
    // Several flushes fail meanwhile (one per 250 ms): time enough for a worker without backpressure to fetch the rest.
    const failures = flushFailures();
    await eventually('four more failed flushes', async () => (flushFailures() >= failures + 4 ? true : undefined), 20_000, 50);
    expect({ fetched: totalHits(), unflushed: (await health()).details.unflushed }).toEqual({ fetched, unflushed: MAX_UNFLUSHED });
    expect(fetched).toBe(MAX_UNFLUSHED);

    proxy.setDown(false);
    const uris = Array.from({ length: DOCUMENTS }, (_, i) => `${host.base}${documentPath(i)}`);
    const entries = await eventually('every outcome stored', async () => {
      const got = await readMetadataEntries(store, uris);
      return [...got.values()].filter((e) => e.status === 'ok').length === DOCUMENTS ? got : undefined;
    }, 30_000, 100);
    for (const [i, uri] of uris.entries()) expect(JSON.parse(entries.get(uri)!.content)).toEqual({ name: `Held ${i}` });
    expect(Array.from({ length: DOCUMENTS }, (_, i) => host.hits(documentPath(i)))).toEqual(Array(DOCUMENTS).fill(1));
    await eventually('healthy again', async () => ((await health()).status === 'ok' ? true : undefined), 10_000, 50);
  });
});
