import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, beginCell, Cell, Dictionary, loadMessage, type Message, storeMessage } from '@ton/core';
import type { BlockRecord } from '@tonstream/records';
import { saveWatermark, type Store } from '@tonstream/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, type Json, okJson, startApi } from './api-server.js';
import { COMMITS, MC, writeMainnetBlocks } from './v3-fixture-data.js';
import { tongoOracles } from '../support/mainnet-sources.js';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const MAINNET = join(import.meta.dirname, '../fixtures/mainnet');
const database = `tonstream_api_v3_msg_${randomBytes(4).toString('hex')}`;

const mcOf = (file: string) => Number(Object.entries(COMMITS).find(([, files]) => files.includes(file.replace(/^blocks\//, '')))![0]);

/** A message as @ton/core reads it from the transaction BoC of transactions.json (independent of our decoder). */
type CoreMsg = { hash: string; source: string | null; destination: string | null; opcode: string | null; bodyHash: string; createdLt: string | null; createdAt: string | null; hashNorm: string | null; ext: string };
type Entry = { category: string; block_file: string; account: string; lt: string; hash_base64: string; boc_base64: string; mc: number; in: CoreMsg | null; out: CoreMsg[] };

const raw = (a: Address | null | undefined) => (a instanceof Address ? a.toRawString().toUpperCase() : null);
function coreMsg(cell: Cell): CoreMsg {
  const m = loadMessage(cell.beginParse());
  const body = m.body.beginParse();
  const opcode = body.remainingBits >= 32 ? '0x' + body.loadUint(32).toString(16).padStart(8, '0') : null;
  const info = m.info;
  let hashNorm: string | null = null;
  if (info.type === 'external-in') {
    // TEP-467: no source, import_fee 0, no init, body in a ref.
    const norm: Message = { info: { type: 'external-in', src: null, dest: info.dest, importFee: 0n }, body: m.body };
    hashNorm = beginCell().store(storeMessage(norm, { forceRef: true })).endCell().hash().toString('base64');
  }
  return {
    hash: cell.hash().toString('base64'),
    source: info.type === 'external-in' ? null : raw(info.src as Address),
    destination: info.type === 'external-out' ? null : raw(info.dest as Address),
    opcode,
    bodyHash: m.body.hash().toString('base64'),
    createdLt: info.type === 'external-in' ? null : info.createdLt.toString(),
    createdAt: info.type === 'external-in' ? null : String(info.createdAt),
    hashNorm,
    ext: info.type,
  };
}
function entries(): Entry[] {
  const list = JSON.parse(readFileSync(join(MAINNET, 'transactions.json'), 'utf8')).transactions as Omit<Entry, 'mc' | 'in' | 'out'>[];
  return list.map((e) => {
    const s = Cell.fromBase64(e.boc_base64).refs[0].beginParse();
    const inCell = s.loadBit() ? s.loadRef() : null;
    const outs = s.loadDict(Dictionary.Keys.Uint(15), { serialize: () => undefined, parse: (x) => x.loadRef() });
    return { ...e, mc: mcOf(e.block_file), in: inCell && coreMsg(inCell), out: [...outs.values()].map(coreMsg) };
  });
}
const ENTRIES = entries();
/** Names toncenter's decoder (ton-marker schemes.tlb) gives the standard TEP-74 / TEP-62 opcodes. */
const TON_MARKER_NAMES: Record<string, string> = {
  '0x0f8a7ea5': 'jetton_transfer', '0x178d4519': 'jetton_internal_transfer', '0x7362d09c': 'jetton_notify', '0xd53276db': 'excess',
  '0x595f07bc': 'jetton_burn', '0x7bdd97de': 'jetton_burn_notification', '0x5fcc3d14': 'nft_transfer', '0x05138d91': 'nft_ownership_assigned',
  '0x00000000': 'text_comment', '0xffffffff': 'bounce',
};
const below = () => ENTRIES.filter((e) => e.mc <= MC.b);
const enc = encodeURIComponent;
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

let store: Store;
let base: string;
let api: ApiUnderTest;
let mcBlocks: Record<number, BlockRecord>;

// Status and body only: tests here compare whole answers.
const get = async (path: string, headers?: Record<string, string>) => {
  const { status, body } = await getJson(base, path, headers);
  return { status, body };
};
const ok = <T = Json>(path: string, headers?: Record<string, string>) => okJson<T>(base, path, headers);
const msgs = async (q: string) => (await ok(`/api/v3/messages?${q}`)).messages as Json[];
const txs = async (path: string) => (await ok(path)).transactions as Json[];
const settle = () => new Promise((r) => setTimeout(r, 300));
const lts = (list: Json[]) => list.map((m) => BigInt((m.created_lt as string | null) ?? -1));

beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  ({ store, base } = api);
});

afterAll(() => api.stop());

describe('messages family on an empty index', () => {
  it('answers empty lists and 404s', async () => {
    expect(await ok('/api/v3/messages')).toEqual({ messages: [], address_book: {}, metadata: {} });
    expect(await ok(`/api/v3/transactionsByMessage?msg_hash=${ENTRIES[0].in!.hash.replace(/\+/g, '-').replace(/\//g, '_')}`)).toEqual({ transactions: [], address_book: {} });
    expect(await get(`/api/v3/adjacentTransactions?hash=${hex(ENTRIES[0].hash_base64)}`)).toEqual({ status: 404, body: { error: 'adjacent transactions not found' } });
  });
});

describe('messages family over the mainnet fixture blocks', () => {
  beforeAll(async () => {
    mcBlocks = await writeMainnetBlocks(store);
    await saveWatermark(store, { mc_seqno: MC.b, gen_utime: Number(mcBlocks[MC.b].gen_utime) });
    await settle();
  });

  it('the fixtures give what the tests need', () => {
    expect(below().filter((e) => e.in).length).toBeGreaterThanOrEqual(3);
    expect(ENTRIES.filter((e) => e.in?.ext === 'external-in').length).toBeGreaterThan(0);
    expect(ENTRIES.some((e) => e.out.some((m) => m.ext === 'external-out'))).toBe(true);
  });

  it('messages by msg_hash (every form, alias hash): the @ton/core fields and the receiving transaction', async () => {
    const named = new Set<string>();
    for (const e of below()) {
      const m = e.in;
      if (!m) continue;
      for (const q of [`msg_hash=${hex(m.hash)}`, `msg_hash=${enc(m.hash)}`, `hash=0x${hex(m.hash)}`]) {
        const [got, ...rest] = await msgs(q);
        expect(rest, q).toEqual([]);
        expect(got).toMatchObject({ hash: m.hash, source: m.source, destination: m.destination, opcode: m.opcode, created_lt: m.createdLt, created_at: m.createdAt, in_msg_tx_hash: e.hash_base64 });
        expect((got.message_content as Json).hash).toBe(m.bodyHash);
        if (m.opcode !== null && Object.hasOwn(TON_MARKER_NAMES, m.opcode)) named.add(m.opcode);
        expect(got.decoded_opcode, m.opcode ?? 'no opcode').toBe(m.opcode === null ? null : (TON_MARKER_NAMES[m.opcode] ?? got.decoded_opcode));
      }
      const body = await ok(`/api/v3/messages?msg_hash=${hex(m.hash)}`);
      expect(Object.keys(body.address_book as Json).sort()).toEqual([m.source, m.destination].filter((a) => a !== null).sort());
      expect(body.metadata).toEqual({});
    }
    expect(named.size, 'fixture in messages with a standard opcode').toBeGreaterThan(0);
    // msg_hash wins over the alias; both repeated keys are ORed.
    const [a, b] = below().filter((e) => e.in).map((e) => e.in!.hash);
    expect((await msgs(`msg_hash=${enc(a)}&msg_hash=${enc(b)}&hash=${enc(a)}`)).map((m) => m.hash).sort()).toEqual([a, b].sort());
  });

  it('out messages carry out_msg_tx_hash; source is the sending account; direction filters the side', async () => {
    let checked = 0;
    for (const e of below()) {
      for (const m of e.out) {
        const [got] = await msgs(`msg_hash=${enc(m.hash)}`);
        expect(got).toMatchObject({ hash: m.hash, source: e.account.toUpperCase(), destination: m.destination, opcode: m.opcode, out_msg_tx_hash: e.hash_base64 });
        expect(await msgs(`msg_hash=${enc(m.hash)}&direction=out`)).toEqual([got].map(({ in_msg_tx_hash: _, ...rest }) => rest));
        checked++;
      }
      if (e.in) {
        const [onlyIn] = await msgs(`msg_hash=${enc(e.in.hash)}&direction=in`);
        expect(onlyIn.in_msg_tx_hash).toBe(e.hash_base64);
        expect(onlyIn).not.toHaveProperty('out_msg_tx_hash');
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('body_hash, opcode (hex, unprefixed hex, signed decimal), destination and source filters', async () => {
    const e = below().find((x) => x.in?.opcode && x.in.source)!;
    const m = e.in!;
    const byBody = await msgs(`body_hash=${enc(m.bodyHash)}&limit=1000`);
    expect(byBody.map((x) => x.hash)).toContain(m.hash);
    for (const x of byBody) expect((x.message_content as Json).hash).toBe(m.bodyHash);
    const op = Number.parseInt(m.opcode!, 16);
    const signed = String(op | 0);
    const forms = [m.opcode!, m.opcode!.slice(2), ...(/[a-f]/.test(m.opcode!.slice(2)) ? [signed] : [])];
    let first: Json[] | undefined;
    for (const f of forms) {
      const list = await msgs(`opcode=${f}&destination=${m.destination}&limit=1000`);
      expect(list.map((x) => x.hash), f).toContain(m.hash);
      for (const x of list) expect(x).toMatchObject({ opcode: m.opcode, destination: m.destination });
      if (first) expect(list).toEqual(first);
      first = list;
    }
    const friendly = Address.parseRaw(m.source!).toString({ bounceable: true });
    const bySource = await msgs(`source=${friendly}&limit=1000`);
    expect(bySource.map((x) => x.hash)).toContain(m.hash);
    for (const x of bySource) expect(x.source).toBe(m.source);
    expect(await msgs(`source=0:${'AB'.repeat(32)}`)).toEqual([]);
  });

  it('inclusive lt and utime windows on created_lt / created_at', async () => {
    const m = below().find((x) => x.in?.createdLt)!.in!;
    const lt = BigInt(m.createdLt!);
    const q = `destination=${m.destination}&limit=1000`;
    expect((await msgs(`${q}&start_lt=${lt}&end_lt=${lt}`)).map((x) => x.hash)).toContain(m.hash);
    expect((await msgs(`${q}&start_lt=${lt + 1n}&end_lt=${lt}`))).toEqual([]);
    expect((await msgs(`${q}&start_lt=${lt + 1n}`)).map((x) => x.hash)).not.toContain(m.hash);
    expect((await msgs(`${q}&end_lt=${lt - 1n}`)).map((x) => x.hash)).not.toContain(m.hash);
    const at = Number(m.createdAt);
    const inWindow = await msgs(`${q}&start_utime=${at}&end_utime=${at}`);
    expect(inWindow.map((x) => x.hash)).toContain(m.hash);
    for (const x of inWindow) expect(x.created_at).toBe(String(at));
    expect(await msgs(`${q}&start_utime=${at + 1}&end_utime=${at}`)).toEqual([]);
  });

  it('sort and pages: desc by created_lt by default, asc reverses, offset slices', async () => {
    const desc = await msgs('limit=1000&start_lt=1');
    expect(desc.length).toBeGreaterThan(20);
    const d = lts(desc);
    expect(d.every((v, i) => i === 0 || d[i - 1] >= v)).toBe(true);
    // A window of fewer than 1000 rows: ascending is the exact reverse (ties by hash).
    const [lo, hi] = [d[60], d[10]];
    const asc = await msgs(`limit=1000&start_lt=${lo}&end_lt=${hi}&sort=asc`);
    expect(asc).toEqual(desc.filter((x) => BigInt(x.created_lt as string) >= lo && BigInt(x.created_lt as string) <= hi).reverse());
    const a = lts(asc);
    expect(a.every((v, i) => i === 0 || a[i - 1] <= v)).toBe(true);
    expect(await msgs(`limit=7&offset=5&start_lt=${lo}&end_lt=${hi}&sort=asc`)).toEqual(asc.slice(5, 12));
    expect((await msgs('')).length).toBe(10);
    // One row per message hash.
    expect(new Set(desc.map((x) => x.hash)).size).toBe(desc.length);
  });

  it('externals: source=null is external-in, destination=null external-out; exclude/only_externals', async () => {
    const extIn = await msgs('source=null&limit=1000');
    expect(extIn.length).toBeGreaterThan(0);
    for (const x of extIn) expect(x).toMatchObject({ source: null, created_lt: null });
    const only = await msgs('only_externals=true&limit=1000');
    expect(new Set(only.map((x) => x.hash))).toEqual(new Set(extIn.map((x) => x.hash)));
    for (const x of await msgs('exclude_externals=1&limit=1000')) expect(x.created_lt).not.toBeNull();
    // NULL created_lt sorts first descending, last ascending (toncenter / PostgreSQL).
    expect((await msgs('limit=1'))[0].created_lt).toBeNull();
    const wallet = extIn[0].destination as string;
    const asc = await msgs(`destination=${wallet}&limit=1000&sort=asc`);
    expect(asc.length).toBeGreaterThan(1);
    expect(asc[asc.length - 1].created_lt).toBeNull();
    expect((await msgs(`destination=${wallet}&limit=1000`))[0].created_lt).toBeNull();
    for (const x of await msgs('destination=null&limit=1000')) expect(x.destination).toBeNull();
  });

  it('out message counts per block match the tongo oracles (OutMsgCnt)', async () => {
    for (const oracle of tongoOracles()) {
      const blk = oracle.block;
      if (mcOf(blk.file) > MC.b) continue;
      const list = await txs(`/api/v3/transactions?workchain=${blk.workchain}&shard=${blk.shard}&seqno=${blk.seqno}&limit=1000`);
      let outs = 0;
      for (const t of list) {
        for (const m of t.out_msgs as Json[]) {
          outs++;
          if (outs % 25 !== 1) continue; // a sample: every out message is a /messages row with its sender
          const [got] = await msgs(`msg_hash=${enc(m.hash as string)}&direction=out`);
          expect(got).toMatchObject({ hash: m.hash, out_msg_tx_hash: t.hash });
        }
      }
      expect(outs, blk.file).toBe(oracle.outMessages);
    }
  });

  it('transactionsByMessage: by in and out message hash, body_hash, opcode (in only), direction; 422 without a key', async () => {
    for (const e of below()) {
      if (e.in) {
        // Without direction both sides match: the receiver and the sender when it is indexed.
        expect((await txs(`/api/v3/transactionsByMessage?msg_hash=${hex(e.in.hash)}`)).map((t) => t.hash)).toContain(e.hash_base64);
        expect((await txs(`/api/v3/transactionsByMessage?msg_hash=${hex(e.in.hash)}&direction=in`)).map((t) => t.hash)).toEqual([e.hash_base64]);
        for (const t of await txs(`/api/v3/transactionsByMessage?msg_hash=${hex(e.in.hash)}&direction=out`)) {
          expect((t.out_msgs as Json[]).map((m) => m.hash)).toContain(e.in.hash);
        }
      }
      for (const m of e.out) expect((await txs(`/api/v3/transactionsByMessage?msg_hash=${enc(m.hash)}&direction=out`)).map((t) => t.hash)).toEqual([e.hash_base64]);
    }
    const e = below().find((x) => x.in?.opcode)!;
    const byOp = await txs(`/api/v3/transactionsByMessage?opcode=${e.in!.opcode}&limit=1000`);
    expect(byOp.map((t) => t.hash)).toContain(e.hash_base64);
    for (const t of byOp) expect((t.in_msg as Json).opcode).toBe(e.in!.opcode);
    const l = byOp.map((t) => BigInt(t.lt as string));
    expect(l.every((v, i) => i === 0 || l[i - 1] >= v)).toBe(true);
    expect(await txs(`/api/v3/transactionsByMessage?opcode=${e.in!.opcode}&direction=out`)).toEqual([]);
    expect((await txs(`/api/v3/transactionsByMessage?body_hash=${enc(e.in!.bodyHash)}&direction=in&limit=1000`)).map((t) => t.hash)).toContain(e.hash_base64);
    if (byOp.length > 2) expect(await txs(`/api/v3/transactionsByMessage?opcode=${e.in!.opcode}&limit=2&offset=1`)).toEqual(byOp.slice(1, 3));
    expect(await get('/api/v3/transactionsByMessage?direction=in')).toEqual({ status: 422, body: { error: 'at least one of msg_hash, body_hash, opcode should be specified' } });
  });

  it('adjacentTransactions: 404 for a transaction without indexed neighbours, unknown or above the watermark; 422 without hash', async () => {
    expect(await get(`/api/v3/adjacentTransactions?hash=${'ab'.repeat(32)}`)).toEqual({ status: 404, body: { error: 'adjacent transactions not found' } });
    const above = ENTRIES.find((e) => e.mc > MC.b)!;
    expect((await get(`/api/v3/adjacentTransactions?hash=${hex(above.hash_base64)}`)).status).toBe(404);
    expect((await get('/api/v3/adjacentTransactions')).body.error).toContain('"hash"');
  });

  it('nothing above the watermark', async () => {
    for (const e of ENTRIES.filter((x) => x.mc > MC.b)) {
      for (const m of [e.in, ...e.out].filter((x): x is CoreMsg => x !== null)) {
        expect(await msgs(`msg_hash=${enc(m.hash)}`), e.category).toEqual([]);
        expect(await txs(`/api/v3/transactionsByMessage?msg_hash=${enc(m.hash)}`)).toEqual([]);
      }
    }
  });

  it('bad input: 422 naming the parameter; strict params', async () => {
    const cases: [string, string][] = [
      ['/api/v3/messages?opcode=0x123456789', 'opcode'],
      ['/api/v3/messages?opcode=2147483648', 'opcode'],
      ['/api/v3/messages?opcode=xyz', 'opcode'],
      ['/api/v3/messages?source=nul', 'source'],
      ['/api/v3/messages?destination=0:zz', 'destination'],
      ['/api/v3/messages?direction=both', 'direction'],
      ['/api/v3/messages?msg_hash=abc', 'msg_hash'],
      ['/api/v3/messages?exclude_externals=yes', 'exclude_externals'],
      ['/api/v3/messages?limit=1001', 'limit'],
      ['/api/v3/transactionsByMessage?opcode=1&direction=x', 'direction'],
      ['/api/v3/adjacentTransactions?hash=zz', 'hash'],
    ];
    for (const [path, name] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(422);
      expect(r.body.error, path).toContain(name);
    }
    expect(await get('/api/v3/messages?account=1', { 'X-Strict-Params': 'true' })).toEqual({ status: 422, body: { error: 'unknown parameter "account"' } });
    expect((await get('/api/v3/messages?limit=1&hash=' + 'ab'.repeat(32), { 'X-Strict-Params': 'true' })).status).toBe(200);
  });

  it('openapi.json lists the three endpoints', async () => {
    const doc = await ok('/api/v3/openapi.json');
    const paths = doc.paths as Record<string, { get: { parameters: { name: string }[]; responses: Json } }>;
    for (const p of ['/api/v3/messages', '/api/v3/transactionsByMessage', '/api/v3/adjacentTransactions']) expect(paths).toHaveProperty([p]);
    const names = paths['/api/v3/messages'].get.parameters.map((p) => p.name);
    for (const n of ['msg_hash', 'hash', 'body_hash', 'source', 'destination', 'opcode', 'start_utime', 'end_utime', 'start_lt', 'end_lt', 'direction', 'exclude_externals', 'only_externals', 'limit', 'offset', 'sort']) expect(names).toContain(n);
    expect(paths['/api/v3/adjacentTransactions'].get.responses).toHaveProperty('404');
  });

  describe('with the watermark raised over the last masterchain block', () => {
    beforeAll(async () => {
      await saveWatermark(store, { mc_seqno: MC.c, gen_utime: Number(mcBlocks[MC.c].gen_utime) });
      await settle();
    });

    it('external-in messages: source null, found by their TEP-467 normalised hash too', async () => {
      const ext = ENTRIES.filter((e) => e.in?.ext === 'external-in');
      expect(ext.length).toBeGreaterThan(0);
      for (const e of ext) {
        const m = e.in!;
        const [got] = await msgs(`msg_hash=${enc(m.hash)}`);
        expect(got).toMatchObject({ hash: m.hash, source: null, created_lt: null, created_at: null, destination: m.destination, in_msg_tx_hash: e.hash_base64 });
        expect((await msgs(`source=null&destination=${m.destination}&limit=1000`)).map((x) => x.hash)).toContain(m.hash);
        expect(got.hash_norm).toBe(m.hashNorm);
        expect((await msgs(`msg_hash=${enc(m.hashNorm!)}`)).map((x) => x.hash)).toEqual([m.hash]);
        expect((await txs(`/api/v3/transactionsByMessage?msg_hash=${enc(m.hashNorm!)}`)).map((t) => t.hash)).toEqual([e.hash_base64]);
        // Bounds on created_lt drop rows without one, as SQL NULL does in toncenter.
        expect((await msgs(`msg_hash=${enc(m.hash)}&start_lt=0`))).toEqual([]);
        expect((await msgs(`msg_hash=${enc(m.hash)}&exclude_externals=true`))).toEqual([]);
      }
    });

    it('external-out messages: destination null', async () => {
      const e = ENTRIES.find((x) => x.out.some((m) => m.ext === 'external-out'))!;
      const m = e.out.find((x) => x.ext === 'external-out')!;
      const list = await msgs(`destination=null&source=${e.account}&limit=1000`);
      expect(list.map((x) => x.hash)).toContain(m.hash);
      for (const x of list) expect(x).toMatchObject({ destination: null, source: e.account.toUpperCase() });
    });

    it('adjacentTransactions and both sides of a message, from pairs @ton/core links', async () => {
      const pairs: [Entry, Entry, string][] = [];
      for (const parent of ENTRIES) for (const child of ENTRIES) {
        if (child.in && parent.out.some((m) => m.hash === child.in!.hash)) pairs.push([parent, child, child.in.hash]);
      }
      let linked = 0;
      for (const e of ENTRIES) {
        const all = await get(`/api/v3/adjacentTransactions?hash=${enc(e.hash_base64)}`);
        if (all.status === 404) continue;
        linked++;
        const list = all.body.transactions as Json[];
        const l = list.map((t) => BigInt(t.lt as string));
        expect(l.every((v, i) => i === 0 || l[i - 1] <= v)).toBe(true);
        // Each neighbour is linked to e by a message @ton/core sees in e's BoC.
        const hashes = new Set([e.in?.hash, ...e.out.map((m) => m.hash)]);
        for (const t of list) {
          const linkedBy = [(t.in_msg as Json | null)?.hash, ...(t.out_msgs as Json[]).map((m) => m.hash)].filter((h) => hashes.has(h as string));
          expect(linkedBy.length, t.hash as string).toBeGreaterThan(0);
        }
        const parents = (await get(`/api/v3/adjacentTransactions?hash=${enc(e.hash_base64)}&direction=in`)).body.transactions as Json[] | undefined;
        for (const t of parents ?? []) expect((t.out_msgs as Json[]).map((m) => m.hash)).toContain(e.in!.hash);
        const children = (await get(`/api/v3/adjacentTransactions?hash=${enc(e.hash_base64)}&direction=out`)).body.transactions as Json[] | undefined;
        for (const t of children ?? []) expect(e.out.map((m) => m.hash)).toContain((t.in_msg as Json).hash);
        expect((parents?.length ?? 0) + (children?.length ?? 0)).toBe(list.length);
      }
      expect(linked).toBeGreaterThan(0);
      for (const [parent, child, hash] of pairs) {
        const [m] = await msgs(`msg_hash=${enc(hash)}`);
        expect(m).toMatchObject({ in_msg_tx_hash: child.hash_base64, out_msg_tx_hash: parent.hash_base64 });
        const up = (await ok(`/api/v3/adjacentTransactions?hash=${enc(child.hash_base64)}&direction=in`)).transactions as Json[];
        expect(up.map((t) => t.hash)).toEqual([parent.hash_base64]);
      }
    });
  });
});
