import type { TransactionRecord } from '@tonstream/records';
import type { ActionRecord, TraceRecord } from '@tonstream/traces';
import { describe, expect, it } from 'vitest';
import { createFanout, type Client } from './fanout.js';
import { decodePendingTraceMessage, pendingEvents } from './pending-events.js';
import { applySubscription, emptySubscription, parseSubscription } from './subscription.js';
import { createTraceLinks } from './trace-links.js';
import { createTracerJoin } from './tracer-join.js';

const A = `0:${'AA'.repeat(32)}`;
const B = `0:${'BB'.repeat(32)}`;
const C = `0:${'CC'.repeat(32)}`;
const NORM = Buffer.alloc(32, 7).toString('base64');
const EXT = Buffer.alloc(32, 8).toString('base64');
const h = (n: number) => Buffer.alloc(32, n).toString('base64');

const msg = (hash: string, source: string | null, destination: string | null) => ({ hash, source, destination, created_lt: '1', hash_norm: source === null ? NORM : undefined }) as never;
const tx = (hash: string, account: string, lt: string, inMsg: ReturnType<typeof msg>, out: ReturnType<typeof msg>[]): TransactionRecord =>
  ({ hash, account, lt, now: 1, mc_block_seqno: 1, in_msg: inMsg, out_msgs: out, end_status: 'active', description: {} }) as unknown as TransactionRecord;
const action = (id: string, type: string, accounts: string[], extra: Partial<ActionRecord> = {}): ActionRecord =>
  ({ action_id: id, trace_id: h(1), type, success: true, start_lt: '1', end_lt: id === 'x' ? '5' : '3', start_utime: 1, end_utime: 1, trace_end_lt: '5', trace_end_utime: 1, trace_mc_seqno_end: 1, transactions: [], accounts, details: { amount: '250' }, ...extra }) as ActionRecord;

// A wallet (A) sends to B, which sends on to C: three transactions, the external's trace.
const txs = [tx(h(1), A, '1', msg(EXT, null, A), [msg(h(11), A, B)]), tx(h(2), B, '3', msg(h(11), A, B), [msg(h(12), B, C)]), tx(h(3), C, '5', msg(h(12), B, C), [])];
const nodes = [
  { tx_hash: h(1), in_msg_hash: EXT, parent: null, out_msgs: 1 },
  { tx_hash: h(2), in_msg_hash: h(11), parent: h(1), out_msgs: 1 },
  { tx_hash: h(3), in_msg_hash: h(12), parent: h(2), out_msgs: 0 },
];

function client(id: number, body: Record<string, unknown>): Client & { got: Record<string, unknown>[] } {
  const got: Record<string, unknown>[] = [];
  const r = parseSubscription(body, 'ws', 10);
  if (!r.ok) throw new Error(r.error);
  return { id, sub: applySubscription(emptySubscription(), r.value), floor: null, got, deliver: (json) => got.push(JSON.parse(json) as Record<string, unknown>) };
}

describe('pending events and invalidation', () => {
  const stored = decodePendingTraceMessage(JSON.stringify({ kind: 'stored', trace: { external_hash: EXT, external_hash_norm: NORM, nodes }, transactions: txs, actions: [action('x', 'jetton_transfer', [A, C]), action('y', 'multisig_create_order', [B], { ancestor_type: [] })] }));

  it('decodePendingTraceMessage() refuses what is not a pending trace message, naming the part', () => {
    expect(() => decodePendingTraceMessage('[]')).toThrow(/expected a JSON object/);
    expect(() => decodePendingTraceMessage('{"kind":"stored","trace":{}}')).toThrow(/trace: expected/);
    expect(decodePendingTraceMessage('{"kind":"invalidated","hash_norm":"n","reason":"expired"}')).toEqual({ kind: 'invalidated', hashNorm: 'n', reason: 'expired' });
  });

  it('emitPending() reaches min_finality pending clients only, filtered per client; invalidation follows the per-connection memory', () => {
    if (stored.kind !== 'stored') throw new Error('stored');
    const f = createFanout({ retainMcBlocks: 10, retainMaxBytes: 1e9 });
    const pending = client(1, { types: ['transactions', 'actions'], addresses: [A], min_finality: 'pending', supported_action_types: ['v1'] });
    const latest = client(2, { types: ['actions', 'trace'], addresses: [B], trace_external_hash_norms: [NORM], min_finality: 'pending' });
    const confirmedOnly = client(3, { types: ['transactions', 'actions'], addresses: [A, B, C], min_finality: 'confirmed' });
    for (const c of [pending, latest, confirmedOnly]) {
      f.add(c);
      f.setSubscription(c, c.sub);
    }
    f.emitPending(pendingEvents(stored));
    // Client 1: its account's transaction only; the jetton_transfer (A among its accounts), not the v2 type.
    expect(pending.got.map((n) => [n.type, n.finality])).toEqual([['transactions', 'pending'], ['actions', 'pending']]);
    expect((pending.got[0].transactions as { account: string; emulated: boolean; trace_id?: string }[]).map((t) => [t.account, t.emulated, t.trace_id])).toEqual([[A, true, undefined]]);
    expect((pending.got[1].actions as { action_id: string; trace_id: null; finality: string; trace_external_hash_norm: string }[]).map((a) => [a.action_id, a.trace_id, a.finality, a.trace_external_hash_norm])).toEqual([['x', null, 'pending', NORM]]);
    // Client 2 (latest): the v2 action on B, then the whole trace by its hash with both actions, end_lt descending.
    expect(latest.got.map((n) => n.type)).toEqual(['actions', 'trace']);
    expect((latest.got[0].actions as { action_id: string }[]).map((a) => a.action_id)).toEqual(['y']);
    const trace = latest.got[1] as { trace: unknown; transactions: Record<string, { trace_external_hash: string }>; actions: { action_id: string }[] };
    expect(trace.trace).toEqual({ tx_hash: h(1), in_msg_hash: EXT, children: [{ tx_hash: h(2), in_msg_hash: h(11), children: [{ tx_hash: h(3), in_msg_hash: h(12), children: [] }] }] });
    expect(Object.keys(trace.transactions)).toEqual([h(1), h(2), h(3)]);
    expect(trace.transactions[h(2)].trace_external_hash).toBe(EXT);
    expect(trace.actions.map((a) => a.action_id)).toEqual(['x', 'y']);
    expect(confirmedOnly.got).toEqual([]);

    // Client 2 is later sent the finalized trace: it forgets it. Client 1 is told once, even after unsubscribing.
    f.emit('finalized', 1, pendingEvents(stored).filter((e) => e.type === 'trace'));
    f.unsubscribe(pending, [A], []);
    f.invalidate(NORM);
    f.invalidate(NORM);
    expect(pending.got.slice(2)).toEqual([{ type: 'trace_invalidated', trace_external_hash_norm: NORM, cursor: 'f1.0c0' }]);
    expect(latest.got.map((n) => n.type)).toEqual(['actions', 'trace', 'trace']);
    expect(confirmedOnly.got).toEqual([]);
  });
});

describe('confirmed actions and trace from the tracer', () => {
  it('a trace followed over two blocks completes in the second; its events wait for the tracer\'s records', () => {
    const links = createTraceLinks(100);
    const join = createTracerJoin(100);
    links.assign(1, txs.slice(0, 2));
    expect([...links.completed]).toEqual([]);
    links.assign(2, txs.slice(2));
    expect([...links.completed]).toEqual([[NORM, h(1)]]);
    const completed = new Map(links.completed);
    join.addTransactions(1, [[NORM, txs.slice(0, 2).map((record) => ({ account: record.account, lt: record.lt, record, traceId: h(1), json: {} }))]]);
    join.addTransactions(2, [[NORM, txs.slice(2).map((record) => ({ account: record.account, lt: record.lt, record, traceId: h(1), json: {} }))]]);
    expect(join.ready(completed)).toBe(false);
    const record = { trace_id: h(1), external_hash: EXT, external_hash_norm: NORM, end_lt: '5', trace_info: { classification_state: 'ok' }, nodes: nodes.map((n) => ({ ...n, account: A, lt: '1' })) } as unknown as TraceRecord;
    join.addTrace(record);
    expect(join.ready(completed)).toBe(false);
    join.addActions(h(1), [action('x', 'jetton_transfer', [A, C])]);
    expect(join.ready(completed)).toBe(true);
    const events = join.take(completed);
    expect(events.map((e) => e.type)).toEqual(['actions', 'trace']);
    const t = events[1];
    if (t.type !== 'trace') throw new Error('trace');
    expect(t.txs.map((x) => x.record.hash)).toEqual([h(1), h(2), h(3)]);
    expect(join.size).toEqual({ traces: 0, openTraces: 0 });
  });
});
