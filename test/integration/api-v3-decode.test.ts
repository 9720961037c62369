import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cell, loadTransaction, type Message } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, startApi } from './api-server.js';
import { runPython } from './python.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const MAINNET = join(import.meta.dirname, '../fixtures/mainnet');
const database = `tonstream_api_v3_decode_${randomBytes(4).toString('hex')}`;

// Real mainnet bodies from transactions.json, read here with @ton/core (not with the code under
// test). Opcode names: SOURCES.md's opcode list, named as toncenter's decoder names them.

type Tx = { category: string; in: Message | null; out: Message[] };
const TXS: Tx[] = (JSON.parse(readFileSync(join(MAINNET, 'transactions.json'), 'utf8')).transactions as { category: string; boc_base64: string }[]).map((e) => {
  const tx = loadTransaction(Cell.fromBase64(e.boc_base64).beginParse());
  return { category: e.category, in: tx.inMessage ?? null, out: [...tx.outMessages.values()] };
});
const inbound = (category: string) => TXS.find((t) => t.category === category)!.in!.body;
const opcodeOf = (body: Cell) => (body.bits.length >= 32 ? body.beginParse().preloadUint(32) : null);
const b64 = (c: Cell) => c.toBoc().toString('base64');
const hex = (c: Cell) => c.toBoc().toString('hex');

let api: ApiUnderTest;
type Json = Record<string, unknown>;
type Decoded = { opcodes: string[]; bodies: Json[] };

async function get(query: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${api.base}/api/v3/decode?${query}`);
  return { status: res.status, body: (await res.json()) as Json };
}

async function post(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${api.base}/api/v3/decode`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Json };
}

const query = (key: string, values: string[]) => values.map((v) => `${key}=${encodeURIComponent(v)}`).join('&');

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
});

afterAll(async () => {
  await api?.stop();
});

describe('GET and POST /api/v3/decode', () => {
  it('names opcodes given as hex (with or without 0x, hex first), decimal and signed decimal; others are unknown', async () => {
    const opcodes = ['0x0f8a7ea5', '178d4519', '0X7362D09C', '260734629', '-1', String(0x8b771735 - 2 ** 32), '15', '0xdeadbeef', 'd53276db'];
    const want = ['jetton_transfer', 'jetton_internal_transfer', 'jetton_notify', 'jetton_transfer', 'bounce', 'report_static_data', 'minter_jetton_mint', 'unknown', 'excess'];
    const r = await get(query('opcodes', opcodes));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ opcodes: want, bodies: [] });
    expect((await post(JSON.stringify({ opcodes }))).body).toEqual({ opcodes: want, bodies: [] });
  });

  it('decodes mainnet bodies given as base64 or hex, with the values @ton/core reads', async () => {
    const transfer = inbound('jetton_transfer');
    const s = transfer.beginParse().skip(32);
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const destination = s.loadAddress();
    const comment = inbound('internal_text_comment');
    const r = await get(`${query('bodies', [b64(transfer), hex(comment)])}&${query('opcodes', ['0'])}`);
    expect(r.status).toBe(200);
    const { opcodes, bodies } = r.body as Decoded;
    expect(opcodes).toEqual(['text_comment']);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({
      '@type': 'jetton_transfer',
      query_id: queryId.toString(),
      amount: { '@type': 'var_uint', value: amount.toString() },
      destination: { internal_address: { '@type': 'addr_std', workchain_id: String(destination.workChain), address: destination.hash.toString('hex').toUpperCase() } },
    });
    expect(bodies[1]).toEqual({ '@type': 'text_comment', text: comment.beginParse().skip(32).loadStringTail() });
  });

  it('answers the same to GET and POST, hex and base64', async () => {
    const bodies = TXS.flatMap((t) => [t.in, ...t.out]).filter((m): m is Message => m !== null).map((m) => m.body).slice(0, 40);
    const viaGet = await get(query('bodies', bodies.map(b64)));
    const viaPost = await post(JSON.stringify({ bodies: bodies.map(hex) }));
    expect(viaGet.status).toBe(200);
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
    expect((viaGet.body as Decoded).bodies).toHaveLength(40);
  });

  it('reports, in place, garbage and bodies of contracts it does not know', async () => {
    const dex = TXS.flatMap((t) => [t.in, ...t.out]).find((m) => m !== null && opcodeOf(m.body) === 0xaf750d34)!.body;
    const r = await post(JSON.stringify({ bodies: ['not a boc!', Buffer.from('hello world').toString('base64'), b64(dex), '', b64(inbound('jetton_burn'))] }));
    expect(r.status).toBe(200);
    const { bodies } = r.body as Decoded;
    expect(bodies.slice(0, 4)).toEqual([
      { error: 'unknown: failed to decode base64' },
      { error: 'unknown: failed to deserialize boc' },
      { error: 'unknown: no parser succeeded' },
      { error: 'unknown: failed to deserialize boc' },
    ]);
    expect(bodies[4]).toMatchObject({ '@type': 'jetton_burn' });
  });

  it('takes 1000 items and refuses 1001 with toncenter\'s message, on GET and POST', async () => {
    const small = b64(inbound('jetton_excesses'));
    const ok = await post(JSON.stringify({ opcodes: Array(1000).fill('0xd53276db'), bodies: Array(1000).fill(small) }));
    expect(ok.status).toBe(200);
    expect((ok.body as Decoded).opcodes).toEqual(Array(1000).fill('excess'));
    expect(new Set((ok.body as Decoded).bodies.map((b) => b['@type']))).toEqual(new Set(['excess']));
    expect(await post(JSON.stringify({ opcodes: Array(1001).fill('1') }))).toEqual({ status: 422, body: { error: 'opcodes list exceeds maximum length of 1000' } });
    expect(await post(JSON.stringify({ bodies: Array(1001).fill(small) }))).toEqual({ status: 422, body: { error: 'bodies list exceeds maximum length of 1000' } });
    expect(await get(query('opcodes', Array(1001).fill('1')))).toEqual({ status: 422, body: { error: 'opcodes list exceeds maximum length of 1000' } });
  });

  it('refuses a bad opcode with 422 naming its index and the parameter', async () => {
    for (const r of [await get(query('opcodes', ['0x0f8a7ea5', '0x1ffffffff'])), await post(JSON.stringify({ opcodes: ['0x0f8a7ea5', 'xyz'] }))]) {
      expect(r.status).toBe(422);
      expect(r.body.error).toMatch(/^invalid opcode format at index 1: parameter "opcodes" expects /);
    }
  });

  it('answers a POST body that is not JSON, not an object or of the wrong types with 4xx naming it', async () => {
    const notJson = await post('{"opcodes": [', {});
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/^request body is not valid JSON/);
    expect(await post('["0x0f8a7ea5"]')).toEqual({ status: 422, body: { error: 'request body must be a JSON object' } });
    const scalar = await post(JSON.stringify({ opcodes: '0x0f8a7ea5' }));
    expect(scalar).toEqual({ status: 422, body: { error: 'invalid value for field "opcodes": expected an array' } });
    const number = await post(JSON.stringify({ opcodes: ['0x0f8a7ea5', 260734629] }));
    expect(number.status).toBe(422);
    expect(number.body.error).toMatch(/^invalid value for field "opcodes" at index 1: /);
    const strict = await post(JSON.stringify({ opcode: ['1'] }), { 'content-type': 'application/json', 'x-strict-params': 'true' });
    expect(strict).toEqual({ status: 422, body: { error: 'unknown parameter "opcode"' } });
    // No body at all, or null lists: nothing to decode.
    expect(await post('', {})).toEqual({ status: 200, body: { opcodes: [], bodies: [] } });
    expect(await post(JSON.stringify({ opcodes: null, bodies: [b64(inbound('jetton_excesses'))] }))).toMatchObject({ status: 200, body: { opcodes: [], bodies: [{ '@type': 'excess' }] } });
  });

  it('documents GET and POST in the OpenAPI document, the POST body from the same declarations', async () => {
    const doc = (await (await fetch(`${api.base}/api/v3/openapi.json`)).json()) as { paths: Record<string, Record<string, Json>> };
    const path = doc.paths['/api/v3/decode'];
    expect(Object.keys(path).sort()).toEqual(['get', 'post']);
    expect(path.get.operationId).toBe('getDecode');
    expect(path.post.operationId).toBe('postDecode');
    const getParams = (path.get.parameters as { name: string; in: string; schema: Json }[]).filter((p) => p.name === 'opcodes' || p.name === 'bodies');
    expect(getParams.map((p) => [p.name, p.in, p.schema.type, p.schema.maxItems])).toEqual([['opcodes', 'query', 'array', 1000], ['bodies', 'query', 'array', 1000]]);
    const body = (path.post.requestBody as { content: Record<string, { schema: { type: string; properties: Record<string, Json> } }> }).content['application/json'].schema;
    expect(body.type).toBe('object');
    expect(Object.keys(body.properties)).toEqual(['opcodes', 'bodies']);
    expect(body.properties.opcodes).toMatchObject({ type: 'array', items: { type: 'string' }, maxItems: 1000 });
    expect(Object.keys(path.post.responses as Json)).toEqual(expect.arrayContaining(['200', '400', '413', '422']));
  });

  it('parses with the toncenter Python SDK (get_decode and post_decode, strict models)', async () => {
    const transfer = inbound('jetton_transfer');
    const dir = mkdtempSync(join(tmpdir(), 'tonstream-decode-sdk-'));
    try {
      const known = join(dir, 'known.json');
      const expectItems = { items: [{ opcodes: ['jetton_transfer', 'unknown'], bodies: [{ '@type': 'jetton_transfer' }, { error: 'unknown: failed to decode base64' }] }] };
      const args = { opcodes: ['0x0f8a7ea5', '0xdeadbeef'], bodies: [b64(transfer), '!!'] };
      writeFileSync(known, JSON.stringify({ 'GET /decode': { args, expect: expectItems }, 'POST /decode': { args, expect: expectItems } }));
      const run = await runPython(['test/python/toncenter_sdk_check.py', api.base, known]);
      // The script checks every endpoint it knows; this suite gives values for /decode only.
      const results = JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, { ok: boolean; error?: string; unmodelled?: string[] }>;
      expect(results['GET /decode'], run.stderr).toMatchObject({ ok: true, unmodelled: [] });
      expect(results['POST /decode'], run.stderr).toMatchObject({ ok: true, unmodelled: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

