import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson, type FetchOptions } from './fetch-json.js';

// A server in this process (no network): the cases the integration test (test/integration/metadata-worker.test.ts) does not cover.
let server: Server;
let base: string;
const options: FetchOptions = { timeoutMs: 2_000, maxBytes: 1_024, maxRedirects: 2, allowPrivateHosts: true };

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/ok') return void res.writeHead(200).end('\uFEFF{"name":"x"}');
    if (path === '/array') return void res.writeHead(200).end('[1,2]');
    if (path === '/declared-large') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
    if (path === '/relative') return void res.writeHead(301, { location: 'ok' }).end();
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
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (path: string, o: Partial<FetchOptions> = {}) => fetchJson(new URL(path, base), { ...options, ...o });

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
  it('refuses loopback and private hosts unless allowed, by literal address and by name', async () => {
    for (const url of [`${base}/ok`, 'http://10.0.0.1/x', 'http://[::1]:1/x']) {
      expect(await fetchJson(new URL(url), { ...options, allowPrivateHosts: false }), url).toMatchObject({ ok: false, reason: 'private_address', retryable: false });
    }
    const port = new URL(base).port;
    expect(await fetchJson(new URL(`http://localhost:${port}/ok`), { ...options, allowPrivateHosts: false })).toMatchObject({ ok: false, reason: 'private_address' });
  });
  it('answers aborted when the caller stops it', async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await get('/ok', { signal: stop.signal })).toMatchObject({ ok: false, reason: 'aborted' });
  });
});
