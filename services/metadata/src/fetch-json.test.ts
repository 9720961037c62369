import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson, type FetchOptions, type FetchResult } from './fetch-json.js';

// A server in this process (no network): the cases the integration test (test/integration/metadata-worker.test.ts) does not cover.
// It is the one origin allowed to be private (as a local IPFS gateway is); `victim` is any other listener on 127.0.0.1.
let server: Server;
let base: string;
let victim: Server;
let victimPort: number;
let victimConnections = 0;
const options: FetchOptions = { timeoutMs: 2_000, maxBytes: 1_024, maxRedirects: 2 };

/**
 * Hosts that must never be reached, each with `victimPort` appended: loopback by name, in the IPv4
 * spellings URL parsing normalizes (decimal, octal, hex, short) and IPv4-mapped, then the other ranges
 * that hold no internet host (most could not reach the victim here, but each must be refused before
 * a connection is tried).
 */
const HOSTILE = [
  '127.0.0.1', 'localhost', '2130706433', '0177.0.0.1', '0x7f.1', '0x7f000001', '127.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]',
  '[::1]', '0.0.0.0', '0', '[::]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
  '169.254.169.254', '0xa9fea9fe', '[::ffff:a9fe:a9fe]', '[::ffff:169.254.169.254]', '[64:ff9b::a9fe:a9fe]',
  '10.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1', '224.0.0.1', '255.255.255.255', '240.0.0.1', '192.0.2.1',
  '[fec0::1]', '[fc00::1]', '[fd12:3456::1]', '[fe80::1]', '[ff02::1]', '[ff0e::1]', '[2001:db8::1]',
];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/ok') return void res.writeHead(200).end('\uFEFF{"name":"x"}');
    if (path === '/array') return void res.writeHead(200).end('[1,2]');
    if (path === '/declared-large') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
    if (path === '/relative') return void res.writeHead(301, { location: 'ok' }).end();
    if (path.startsWith('/redirect?to=')) return void res.writeHead(302, { location: decodeURIComponent(path.slice('/redirect?to='.length)) }).end();
    if (path === '/to-ftp') return void res.writeHead(302, { location: 'ftp://example.org/x' }).end();
    if (path === '/gone') return void res.writeHead(404).end();
    if (path === '/busy') return void res.writeHead(503).end();
    if (path === '/cut') {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"name":');
      return void setTimeout(() => res.destroy(), 20);
    }
    res.writeHead(500).end();
  }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  victim = createServer((req, res) => void res.writeHead(200).end('{"leaked":true}')).listen(0, '127.0.0.1');
  victim.on('connection', () => victimConnections++);
  await new Promise((r) => victim.once('listening', r));
  victimPort = (victim.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of [server, victim]) await new Promise<void>((r) => s.close(() => r()));
});

const get = (path: string, o: Partial<FetchOptions> = {}) => fetchJson(new URL(path, base), { ...options, privateOrigin: base, ...o });
const reasonOf = (r: FetchResult) => (r.ok ? 'ok' : r.reason);

describe('fetchJson()', () => {
  it('reads a JSON object (BOM tolerated) and follows a relative redirect', async () => {
    expect(await get('/ok')).toEqual({ ok: true, json: { name: 'x' }, url: `${base}/ok` });
    expect(await get('/relative')).toEqual({ ok: true, json: { name: 'x' }, url: `${base}/ok` });
  });
  it('marks what retrying cannot fix as final and the rest as retryable', async () => {
    const outcome = async (path: string) => {
      const r = await get(path);
      return r.ok ? 'ok' : `${r.reason}${r.retryable ? ' (retryable)' : ''}`;
    };
    expect(await outcome('/array')).toBe('not_object');
    expect(await outcome('/declared-large')).toBe('too_large');
    expect(await outcome('/to-ftp')).toBe('bad_redirect');
    expect(await outcome('/gone')).toBe('http_404');
    expect(await outcome('/busy')).toBe('http_503 (retryable)');
    expect(await outcome('/cut')).toBe('network (retryable)');
  });
  it('refuses every spelling of a non-public address, literal or by name: the listener on 127.0.0.1 sees no connection', async () => {
    const before = victimConnections;
    const outcomes = await Promise.all(HOSTILE.map(async (host) => [host, reasonOf(await fetchJson(new URL(`http://${host}:${victimPort}/x`), options))]));
    expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(HOSTILE.map((host) => [host, 'private_address'])));
    expect(victimConnections - before).toBe(0);
    expect(await fetchJson(new URL(`http://[::ffff:7f00:1]:${victimPort}/x`), options)).toMatchObject({ ok: false, reason: 'private_address', retryable: false });
  });
  it('the private origin covers only itself: not another port of its host, nor where it redirects', async () => {
    const before = victimConnections;
    expect(reasonOf(await get(`http://127.0.0.1:${victimPort}/x`))).toBe('private_address');
    expect(reasonOf(await get(`http://localhost:${new URL(base).port}/ok`))).toBe('private_address'); // same host and port, another origin
    const outcomes = await Promise.all(HOSTILE.map(async (host) => [host, reasonOf(await get(`/redirect?to=${encodeURIComponent(`http://${host}:${victimPort}/x`)}`))]));
    expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(HOSTILE.map((host) => [host, 'private_address'])));
    expect(victimConnections - before).toBe(0);
    // The check itself is no obstacle: the victim answers whoever is allowed to reach it.
    expect(await fetchJson(new URL(`http://127.0.0.1:${victimPort}/x`), { ...options, privateOrigin: `http://127.0.0.1:${victimPort}` })).toMatchObject({ ok: true, json: { leaked: true } });
  });
  it('answers aborted when the caller stops it', async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await get('/ok', { signal: stop.signal })).toMatchObject({ ok: false, reason: 'aborted' });
  });
});
