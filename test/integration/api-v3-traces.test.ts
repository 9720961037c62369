import { randomBytes } from 'node:crypto';
import { recordBatch, saveTracesWatermark, saveWatermark, writeBatch } from '@tonstream/store';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiUnderTest, getJson, okJson, startApi } from './api-server.js';

/**
 * /traces, /events and /actions over stored trace and action records, against the rules of
 * docs/toncenter-v3.md §2.8 and docs/traces-and-actions.md §4: versions of a trace, the watermark, order and
 * pages, each access path, and which actions a `supported_action_types` set shows.
 */
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const database = `tonstream_api_v3_traces_${randomBytes(4).toString('hex')}`;
const WATERMARK = 15;

const h = (n: number) => Buffer.alloc(32, n).toString('base64');
const acc = (c: string) => `0:${c.repeat(64)}`;
const enc = encodeURIComponent;

function trace(id: number, endLt: number, mcEnd: number, accounts: string[], complete = true): TraceRecord {
  const nodes = accounts.map((account, i) => ({ tx_hash: h(id + i), account, lt: String(endLt - accounts.length + 1 + i), in_msg_hash: h(100 + id + i), parent: i === 0 ? null : h(id + i - 1), out_msgs: i < accounts.length - 1 ? 1 : 0 }));
  return {
    trace_id: h(id), external_hash: h(100 + id), external_hash_norm: null, mc_seqno_start: mcEnd - 1, mc_seqno_end: mcEnd,
    start_lt: nodes[0].lt, start_utime: 1000 + endLt - 10, end_lt: String(endLt), end_utime: 1000 + endLt,
    trace_info: { trace_state: complete ? 'complete' : 'pending', messages: accounts.length, transactions: accounts.length, pending_messages: complete ? 0 : 1, classification_state: complete ? 'ok' : 'unclassified' },
    is_incomplete: !complete, nodes,
  };
}

function action(t: TraceRecord, n: number, type: string, accounts: string[], extra: Partial<ActionRecord> = {}): ActionRecord {
  return {
    action_id: h(200 + n), trace_id: t.trace_id, type, success: true, start_lt: String(Number(t.start_lt) + n), end_lt: t.end_lt, start_utime: t.start_utime, end_utime: t.end_utime,
    trace_end_lt: t.end_lt, trace_end_utime: t.end_utime, trace_mc_seqno_end: t.mc_seqno_end, transactions: [t.nodes[0].tx_hash], accounts,
    details: { source: accounts[0], destination: accounts[1] ?? null, value: '1' }, parent_action_id: null, ancestor_type: [], ...extra,
  };
}

const [A, B, C] = [acc('A'), acc('B'), acc('C')];
const early = trace(10, 100, 10, [A, B], false); // published incomplete, later complete (below)
const t1 = trace(10, 120, 12, [A, B, C]);
const t2 = trace(20, 200, 13, [B]);
const above = trace(30, 300, 20, [A]); // ends above the watermark
const purchase = action(t1, 1, 'nft_purchase', [A, B]);
const parts = [
  action(t1, 2, 'nft_transfer', [B, C], { parent_action_id: purchase.action_id, ancestor_type: ['nft_purchase'] }),
  action(t1, 3, 'ton_transfer', [A, C], { parent_action_id: purchase.action_id, ancestor_type: ['nft_purchase'] }),
];
const transfer = action(t2, 4, 'ton_transfer', [B]);
/** Parts of one trace with equal lts are ordered by action_id (the last sort key): as strings. */
const partsAsc = [...parts].sort((a, b) => (a.action_id < b.action_id ? -1 : 1));
const hidden = action(above, 5, 'ton_transfer', [A]);

let api: ApiUnderTest;
beforeAll(async () => {
  api = await startApi(CLICKHOUSE_URL, database);
  await writeBatch(api.store, recordBatch({ traces: [early, t2, above] }));
  await writeBatch(api.store, recordBatch({ traces: [t1], actions: [purchase, ...parts, transfer, hidden] }));
  await saveWatermark(api.store, { mc_seqno: WATERMARK, gen_utime: 2000 });
  // The tracer's batches are all stored (trace-progress.ts; test/integration/trace-watermark.test.ts covers the rest).
  await saveTracesWatermark(api.store, { mc_seqno: 30 });
});
afterAll(() => api?.stop());

type Trace = { trace_id: string; end_lt: string; mc_seqno_end: string; is_incomplete: boolean; trace_info: { trace_state: string; transactions: number }; trace?: unknown; actions?: { action_id: string }[] };
type Action = { action_id: string; type: string; accounts?: string[]; finality: string };
const traces = async (q: string) => (await okJson<{ traces: Trace[] }>(api.base, `/api/v3/traces?${q}`)).traces;
const actions = async (q: string) => (await okJson<{ actions: Action[] }>(api.base, `/api/v3/actions?${q}`)).actions;

describe('/api/v3/traces', () => {
  it('serves the newest version of a trace, with its tree, and nothing ending above the watermark', async () => {
    const [t] = await traces(`trace_id=${enc(t1.trace_id)}`);
    expect(t).toMatchObject({ trace_id: t1.trace_id, end_lt: '120', mc_seqno_end: '12', is_incomplete: false, trace_info: { trace_state: 'complete', transactions: 3 } });
    expect(t.trace).toEqual({ tx_hash: h(10), in_msg_hash: h(110), children: [{ tx_hash: h(11), in_msg_hash: h(111), children: [{ tx_hash: h(12), in_msg_hash: h(112), children: [] }] }] });
    expect(await traces(`trace_id=${enc(above.trace_id)}`)).toEqual([]);
  });

  it('orders by end_lt and pages; finds traces by account and by transaction', async () => {
    expect((await traces('')).map((t) => t.trace_id)).toEqual([t2.trace_id, t1.trace_id]);
    expect((await traces('sort=asc')).map((t) => t.trace_id)).toEqual([t1.trace_id, t2.trace_id]);
    expect((await traces('limit=1&offset=1')).map((t) => t.trace_id)).toEqual([t1.trace_id]);
    expect((await traces(`account=${enc(C)}`)).map((t) => t.trace_id)).toEqual([t1.trace_id]);
    expect((await traces(`account=${enc(B)}&sort=asc`)).map((t) => t.trace_id)).toEqual([t1.trace_id, t2.trace_id]);
    expect((await traces(`tx_hash=${enc(h(12))}`)).map((t) => t.trace_id)).toEqual([t1.trace_id]);
    expect((await traces('start_lt=150')).map((t) => t.trace_id)).toEqual([t2.trace_id]);
    expect((await traces('end_utime=1150')).map((t) => t.trace_id)).toEqual([t1.trace_id]);
  });

  it('refuses two of account, trace_id, tx_hash, msg_hash, and answers 404 for a masterchain block not indexed', async () => {
    const both = await getJson(api.base, `/api/v3/traces?account=${enc(A)}&trace_id=${enc(t1.trace_id)}`);
    expect(both).toMatchObject({ status: 422, body: { error: 'only one of account, trace_id, tx_hash, msg_hash should be specified' } });
    expect((await getJson(api.base, '/api/v3/traces?mc_seqno=12')).status).toBe(404);
  });

  it('includes the actions the supported set shows, and /events is the same with actions', async () => {
    const [t] = await traces(`trace_id=${enc(t1.trace_id)}&include_actions=true`);
    expect(t.actions!.map((a) => a.action_id)).toEqual([purchase.action_id]);
    const [v1] = await traces(`trace_id=${enc(t1.trace_id)}&include_actions=true&supported_action_types=v1`);
    // A trace's actions in (start_lt, end_lt) order.
    expect(v1.actions!.map((a) => a.action_id)).toEqual(parts.map((a) => a.action_id));
    const events = await okJson<{ events: Trace[] }>(api.base, `/api/v3/events?trace_id=${enc(t1.trace_id)}`);
    expect(events.events[0].actions!.map((a) => a.action_id)).toEqual([purchase.action_id]);
  });
});

describe('/api/v3/actions', () => {
  it('shows a composite to a client that knows it and its parts to one that does not', async () => {
    expect((await actions(`trace_id=${enc(t1.trace_id)}`)).map((a) => a.type)).toEqual(['nft_purchase']);
    expect((await actions(`trace_id=${enc(t1.trace_id)}&supported_action_types=v1&sort=asc`)).map((a) => a.type)).toEqual(partsAsc.map((a) => a.type));
    // X-Actions-Version replaces supported_action_types, either way round.
    const typesWith = async (query: string, version: string) =>
      (await okJson<{ actions: Action[] }>(api.base, `/api/v3/actions?${query}`, { 'X-Actions-Version': version })).actions.map((a) => a.type);
    expect(await typesWith(`trace_id=${enc(t1.trace_id)}&sort=asc`, 'v1')).toEqual(partsAsc.map((a) => a.type));
    expect(await typesWith(`trace_id=${enc(t1.trace_id)}&supported_action_types=v1`, 'latest')).toEqual(['nft_purchase']);
    expect(await getJson(api.base, `/api/v3/actions?trace_id=${enc(t1.trace_id)}`, { 'X-Actions-Version': 'v1;drop' })).toMatchObject({ status: 422, body: { error: expect.stringContaining('X-Actions-Version') } });
    // action_type narrows the types, the ancestors still hide parts of a known composite (toncenter's rule).
    expect(await actions(`trace_id=${enc(t1.trace_id)}&action_type=nft_transfer`)).toEqual([]);
    expect((await actions('action_type=ton_transfer')).map((a) => a.action_id)).toEqual([transfer.action_id]);
    expect((await actions('exclude_action_type=ton_transfer')).map((a) => a.action_id)).toEqual([purchase.action_id]);
  });

  it('finds actions by account, transaction and id, newest trace first, accounts only when asked', async () => {
    const byAccount = await actions(`account=${enc(B)}`);
    expect(byAccount.map((a) => a.action_id)).toEqual([transfer.action_id, purchase.action_id]);
    expect(byAccount.every((a) => a.accounts === undefined && a.finality === 'finalized')).toBe(true);
    const partsDesc = [...partsAsc].reverse();
    expect((await actions(`account=${enc(C)}&supported_action_types=v1&include_accounts=true`)).map((a) => [a.type, a.accounts])).toEqual(partsDesc.map((a) => [a.type, a.accounts]));
    expect((await actions(`tx_hash=${enc(h(10))}`)).map((a) => a.action_id)).toEqual([purchase.action_id]);
    expect((await actions(`action_id=${enc(parts[0].action_id)}&supported_action_types=v1`)).map((a) => a.type)).toEqual(['nft_transfer']);
    expect(await actions(`action_id=${enc(hidden.action_id)}`)).toEqual([]); // above the watermark
    expect((await actions('limit=1&offset=1')).map((a) => a.action_id)).toEqual([purchase.action_id]);
  });

  it('refuses an action type with other characters, naming the parameter', async () => {
    const bad = await getJson(api.base, `/api/v3/actions?action_type=${enc("x'y")}`);
    expect(bad.status).toBe(422);
    expect(String(bad.body.error)).toContain('action_type');
  });
});
