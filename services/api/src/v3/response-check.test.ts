import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { V3_API_VERSION, V3_ENDPOINTS } from './index.js';
import { openApiDocument } from './openapi.js';
import { checkResponses, openApiResponseCheck } from './response-check.js';
import { nullable, obj, ref, S } from '../http/schema-kit.js';

const served = openApiResponseCheck(openApiDocument(V3_ENDPOINTS, V3_API_VERSION));

describe('the served OpenAPI document as a response check', () => {
  it('accepts an answer it describes and names what differs in one it does not', () => {
    expect(served('GET', '/api/v3/blocks', 200, { blocks: [] })).toBeNull();
    expect(served('GET', '/api/v3/blocks', 200, { blocks: [], total: 0 })).toMatch(/must NOT have additional properties: total/);
    expect(served('GET', '/api/v3/blocks', 200, {})).toMatch(/must have required property 'blocks'/);
    expect(served('GET', '/api/v3/blocks', 422, { error: 'limit: expected an integer' })).toBeNull();
    expect(served('GET', '/api/v3/blocks', 503, { error: 'index unavailable', request_id: 'x' })).toBeNull();
    expect(served('GET', '/api/v3/blocks', 418, { error: 'teapot' })).toBe('status 418 of GET /api/v3/blocks is not in the document');
    expect(served('POST', '/api/v3/blocks', 200, { blocks: [] })).toMatch(/not in the document/);
  });

  it('reads nullable as "or null", also for a reference, and keeps declared-open objects open', () => {
    const check = openApiResponseCheck({
      openapi: '3.0.3',
      info: {},
      paths: { '/p': { get: { operationId: 'p', responses: { 200: { description: 'OK', content: { 'application/json': { schema: obj({ a: nullable(ref('A')), m: { type: 'object', additionalProperties: S } }) } } } } } } },
      components: { schemas: { A: obj({ x: S }) } },
    });
    expect(check('GET', '/p', 200, { a: null, m: { any: 'thing' } })).toBeNull();
    expect(check('GET', '/p', 200, { a: { x: 'y' }, m: {} })).toBeNull();
    expect(check('GET', '/p', 200, { a: { x: 1 }, m: {} })).toMatch(/body\/a\/x must be string/);
    expect(check('GET', '/p', 200, { a: null, m: { n: 1 } })).toMatch(/body\/m\/n must be string/);
  });
});

describe('checkResponses', () => {
  const servers: { close(): unknown }[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  async function serve(reject: boolean, reports: string[]) {
    const app = express();
    app.use(checkResponses(served, reject, (route, problem) => reports.push(`${route}: ${problem}`)));
    app.get('/blocks', (req, res) => {
      res.locals.route = '/api/v3/blocks';
      res.json(req.query.extra ? { blocks: [], extra: true } : { blocks: [] });
    });
    app.get('/unrouted', (_req, res) => void res.json({ anything: 1 }));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('reject: a mismatching answer becomes a 500 naming the difference; a matching or unrouted one passes', async () => {
    const reports: string[] = [];
    const base = await serve(true, reports);
    const good = await fetch(`${base}/blocks`);
    expect([good.status, await good.json()]).toEqual([200, { blocks: [] }]);
    const bad = await fetch(`${base}/blocks?extra=1`);
    expect(bad.status).toBe(500);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^the answer does not match the OpenAPI document: .*additional properties/);
    expect((await fetch(`${base}/unrouted`)).status).toBe(200);
    expect(reports).toHaveLength(1);
  });

  it('log: the answer goes out unchanged and the mismatch is reported', async () => {
    const reports: string[] = [];
    const base = await serve(false, reports);
    const bad = await fetch(`${base}/blocks?extra=1`);
    expect([bad.status, await bad.json()]).toEqual([200, { blocks: [], extra: true }]);
    expect(reports).toEqual([expect.stringMatching(/^\/api\/v3\/blocks: body must NOT have additional properties/)]);
  });
});
