import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageRecord, TransactionRecord } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { assembleMasterchainBlock, emptyState, SYSTEM_ADDRESS, type AssemblerState, type BlockResult } from './assembler.js';
import { traceTree } from './tree.js';

// toncenter's own recorded mainnet traces (test/fixtures/mainnet/traces, a copy of shared/'s): each file
// holds the trace row toncenter's assembler wrote (trace_id, counters, bounds) and the trace's transactions.
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/mainnet/traces');

type FixtureMessage = { msg_hash: string; direction: 'in' | 'out'; source: string | null; destination: string | null; created_lt: string | null };
type FixtureTx = { hash: string; account: string; lt: string; now: number; mc_block_seqno: number; messages: FixtureMessage[] };
type Fixture = {
  trace: { trace_id: string; external_hash: string | null; mc_seqno_start: number; mc_seqno_end: number; start_lt: string; end_lt: string; start_utime: number; end_utime: number; state: string; pending_edges_: number; edges_: number; nodes_: number };
  transactions: FixtureTx[];
};

const message = (m: FixtureMessage) => ({ hash: m.msg_hash, source: m.source, destination: m.destination, created_lt: m.created_lt }) as MessageRecord;

/** Only what assembly reads; the rest of a TransactionRecord does not matter to it. */
function transaction(t: FixtureTx): TransactionRecord {
  const inMsg = t.messages.find((m) => m.direction === 'in');
  const outs = t.messages.filter((m) => m.direction === 'out').sort((a, b) => (BigInt(a.created_lt!) < BigInt(b.created_lt!) ? -1 : 1));
  return { hash: t.hash, account: t.account, lt: t.lt, now: t.now, mc_block_seqno: t.mc_block_seqno, in_msg: inMsg ? message(inMsg) : null, out_msgs: outs.map(message) } as TransactionRecord;
}

/** Feeds transactions grouped by masterchain block, in seqno order, in a shuffled order inside each block. */
function feed(state: AssemblerState, txs: TransactionRecord[], bound?: number): BlockResult[] {
  const bySeqno = new Map<number, TransactionRecord[]>();
  for (const t of txs) bySeqno.set(t.mc_block_seqno!, [...(bySeqno.get(t.mc_block_seqno!) ?? []), t]);
  return [...bySeqno.keys()].sort((a, b) => a - b).map((n) => assembleMasterchainBlock(state, n, [...bySeqno.get(n)!].reverse(), { incompleteAfterMcBlocks: bound }));
}

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json') && f !== 'expected.json')
  .map((f) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Fixture);

describe('trace assembly on toncenter-assembled mainnet traces', () => {
  it('has the fixtures, many spanning several masterchain blocks', () => {
    expect(fixtures.length).toBeGreaterThan(80);
    expect(fixtures.filter((f) => f.trace.mc_seqno_start !== f.trace.mc_seqno_end).length).toBeGreaterThan(20);
  });

  it.each(fixtures.map((f) => [f.trace.trace_id, f] as const))('%s: one complete trace with toncenter\'s id, counters and bounds', (_id, f) => {
    const state = emptyState();
    const results = feed(state, f.transactions.map(transaction));
    const finished = results.flatMap((r) => r.finished);
    expect(finished).toHaveLength(1);
    const { record, transactions } = finished[0];
    const t = f.trace;
    expect(record).toMatchObject({
      trace_id: t.trace_id,
      external_hash: t.external_hash,
      mc_seqno_start: t.mc_seqno_start,
      mc_seqno_end: t.mc_seqno_end,
      start_lt: t.start_lt,
      end_lt: t.end_lt,
      start_utime: t.start_utime,
      end_utime: t.end_utime,
      is_incomplete: false,
      trace_info: { trace_state: t.state, messages: t.edges_, transactions: t.nodes_, pending_messages: t.pending_edges_ },
    });
    expect(new Set(transactions.map((x) => x.hash))).toEqual(new Set(f.transactions.map((x) => x.hash)));
    // It completed in its last masterchain block, not before, and nothing is left waiting.
    expect(results.at(-1)!.finished).toHaveLength(1);
    expect(state.traces.size).toBe(0);
    expect(state.edges.size).toBe(0);
    // Every node but the root hangs under the transaction that sent its in message.
    const sender = new Map(f.transactions.flatMap((x) => x.messages.filter((m) => m.direction === 'out').map((m) => [m.msg_hash, x.hash] as const)));
    for (const n of record.nodes) expect(n.parent).toBe(n.tx_hash === t.trace_id ? null : sender.get(n.in_msg_hash!));
    const tree = traceTree(record.nodes);
    expect(tree.trace!.tx_hash).toBe(t.trace_id);
    expect(tree.warning).toBeUndefined();
  });

  it('assembles interleaved traces of the same blocks independently', () => {
    const multi = fixtures.filter((f) => f.trace.mc_seqno_start !== f.trace.mc_seqno_end).slice(0, 10);
    const state = emptyState();
    const finished = feed(state, multi.flatMap((f) => f.transactions.map(transaction))).flatMap((r) => r.finished);
    expect(finished.map((x) => x.record.trace_id).sort()).toEqual(multi.map((f) => f.trace.trace_id).sort());
    for (const f of multi) expect(finished.find((x) => x.record.trace_id === f.trace.trace_id)!.record.trace_info.transactions).toBe(f.trace.nodes_);
  });
});

const h = (n: number) => Buffer.alloc(32, n).toString('base64');
const acc = (n: number) => `0:${n.toString(16).toUpperCase().padStart(64, '0')}`;
function tx(n: number, lt: number, inMsg: Partial<MessageRecord> | null, outs: Partial<MessageRecord>[] = [], account = acc(n)): TransactionRecord {
  return { hash: h(n), account, lt: String(lt), now: 1000 + lt, in_msg: inMsg as MessageRecord, out_msgs: outs as MessageRecord[] } as TransactionRecord;
}

describe('trace roots and bounds', () => {
  it('tick-tock and system-message roots complete at once; their messages count as toncenter counts them', () => {
    const state = emptyState();
    const tick = tx(1, 10, null, [{ hash: h(101), destination: null }]);
    const sys = tx(2, 11, { hash: h(102), source: SYSTEM_ADDRESS, destination: acc(2) });
    const [r] = feed(state, [{ ...tick, mc_block_seqno: 5 }, { ...sys, mc_block_seqno: 5 }]);
    const byId = new Map(r.finished.map((f) => [f.record.trace_id, f.record]));
    expect(byId.get(h(1))).toMatchObject({ external_hash: null, trace_info: { trace_state: 'complete', messages: 1, transactions: 1, pending_messages: 0 } });
    expect(byId.get(h(2))).toMatchObject({ external_hash: h(102), trace_info: { trace_state: 'complete', messages: 1, transactions: 1 } });
  });

  it('a root whose sender is unknown is broken, and is published as incomplete once the bound passes', () => {
    const state = emptyState();
    const orphan = tx(3, 20, { hash: h(103), source: acc(9), destination: acc(3) }, [{ hash: h(104), destination: acc(4) }]);
    const child = tx(4, 22, { hash: h(104), source: acc(3), destination: acc(4) });
    const first = assembleMasterchainBlock(state, 7, [orphan], { incompleteAfterMcBlocks: 3 });
    expect(first.finished).toEqual([]);
    expect(first.changed.map((t) => t.trace_id)).toEqual([h(3)]);
    expect([...first.edgesAdded.keys()]).toEqual([h(104)]);
    const second = assembleMasterchainBlock(state, 8, [child], { incompleteAfterMcBlocks: 3 });
    expect(second.finished).toEqual([]);
    expect(second.edgesRemoved).toEqual([h(104)]);
    expect(assembleMasterchainBlock(state, 9, [], { incompleteAfterMcBlocks: 3 }).finished).toEqual([]);
    const last = assembleMasterchainBlock(state, 10, [], { incompleteAfterMcBlocks: 3 });
    expect(last.finished.map((f) => f.record)).toMatchObject([
      { trace_id: h(3), is_incomplete: true, trace_info: { trace_state: 'broken', transactions: 2, messages: 1, pending_messages: 1 } },
    ]);
    expect(last.removed).toEqual([h(3)]);
    expect(state.traces.size + state.edges.size).toBe(0);
  });

  it('after the last block of a history lane every pending trace is published incomplete', () => {
    const state = emptyState();
    const root = tx(7, 50, { hash: h(107), source: null, destination: acc(7) }, [{ hash: h(108), destination: acc(8) }]);
    expect(assembleMasterchainBlock(state, 1, [root]).finished).toEqual([]);
    const last = assembleMasterchainBlock(state, 2, [], { last: true });
    expect(last.finished.map((f) => f.record)).toMatchObject([{ trace_id: h(7), is_incomplete: true, trace_info: { trace_state: 'pending', pending_messages: 1 } }]);
    expect(state.traces.size + state.edges.size).toBe(0);
  });

  it('a trace given up on drops its undelivered messages; a late delivery roots a broken trace', () => {
    const state = emptyState();
    const root = tx(5, 30, { hash: h(105), source: null, destination: acc(5) }, [{ hash: h(106), destination: acc(6) }]);
    assembleMasterchainBlock(state, 1, [root], { incompleteAfterMcBlocks: 2 });
    const gaveUp = assembleMasterchainBlock(state, 3, [], { incompleteAfterMcBlocks: 2 });
    expect(gaveUp.finished.map((f) => f.record)).toMatchObject([{ trace_id: h(5), is_incomplete: true, trace_info: { trace_state: 'pending', pending_messages: 1 } }]);
    expect(gaveUp.edgesRemoved).toEqual([h(106)]);
    const late = assembleMasterchainBlock(state, 4, [tx(6, 40, { hash: h(106), source: acc(5), destination: acc(6) })], { incompleteAfterMcBlocks: 2 });
    expect(late.changed.map((t) => ({ id: t.trace_id, broken: t.broken }))).toEqual([{ id: h(6), broken: true }]);
  });

  it('the delta of each block, applied to a copy, gives the same state (what the tracer saves)', () => {
    const state = emptyState();
    const copy = emptyState();
    const all = fixtures.slice(0, 30).flatMap((f) => f.transactions.map(transaction));
    const seqnos = [...new Set(all.map((t) => t.mc_block_seqno!))].sort((a, b) => a - b);
    let checked = 0;
    for (const n of seqnos) {
      // A small bound, so that traces are also given up on between the fixtures' far-apart blocks.
      const r = assembleMasterchainBlock(state, n, all.filter((t) => t.mc_block_seqno === n), { incompleteAfterMcBlocks: 5 });
      for (const id of r.removed) copy.traces.delete(id);
      for (const t of r.changed) copy.traces.set(t.trace_id, structuredClone(t));
      for (const k of r.edgesRemoved) copy.edges.delete(k);
      for (const [k, e] of r.edgesAdded) copy.edges.set(k, e);
      expect(copy.edges).toEqual(state.edges);
      expect(new Set(copy.traces.keys())).toEqual(new Set(state.traces.keys()));
      for (const [id, t] of state.traces) expect(copy.traces.get(id)).toEqual(t);
      checked += state.edges.size;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
