import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock } from '@tonstream/block';
import { topicNames } from '@tonstream/bus';
import { isTransactionRow, transactionRow } from '@tonstream/records';
import { batchRows, emptyBatch, recordBatch } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { createAccumulator } from './accumulator.js';
import { type Item, readMessage, topicKinds } from './records.js';

const records = decodeBlock(readFileSync(join(import.meta.dirname, '../../../test/fixtures/mainnet/blocks/wc0_8000000000000000_71398501.boc')), { mcSeqno: 77 });
const key = Buffer.from(`0:8000000000000000:${records.block.seqno}`);
const at = (offset: string, partition = 2) => ({ topic: 't', partition, offset });
const bundle = (lines: string[]) => Buffer.from(lines.join('\n'));
const txLines = records.transactions.map((t) => JSON.stringify(transactionRow(t)));
const manifest = JSON.stringify({ transactions: records.transactions.length, messages: records.messages.length, account_states: 0 });

describe('readMessage()', () => {
  it('reads a bundle of real transactions as they are, with a receipt for the block and partition', () => {
    const out = readMessage('transactions', { key, value: bundle(txLines), headers: { mc_seqno: Buffer.from('77') } }, at('5', 3), undefined, 1234);
    expect(out.dead).toEqual([]);
    expect(out.items.map((i) => i.json)).toEqual(txLines);
    expect(out.receipt).toEqual({
      mc_seqno: 77,
      block: key.toString(),
      kind: 'transactions',
      part: 3,
      records: txLines.length,
      dead: 0,
      expect_transactions: 0,
      expect_messages: 0,
      expect_account_states: 0,
      mc_blocks: 0,
      index_from: 0,
      gen_utime: 0,
      written_ms: 1234,
    });
  });

  it('dead-letters a bad line with its reason and position, keeping its neighbours', () => {
    const lines = [txLines[0], '{nope', JSON.stringify({ ...JSON.parse(txLines[1]), in_msg: undefined }), txLines[2]];
    const out = readMessage('transactions', { key, value: bundle(lines), headers: { mc_seqno: '77' } }, at('9'));
    expect(out.items.map((i) => i.json)).toEqual([txLines[0], txLines[2]]);
    expect(out.dead).toEqual([
      { key, value: '{nope', reason: expect.stringContaining('not JSON'), source: at('9'), line: 1 },
      { key, value: lines[2], reason: 'transactions record.in_msg: expected an object, got nothing (the field is missing)', source: at('9'), line: 2 },
    ]);
    expect(out.receipt).toMatchObject({ records: 2, dead: 2 });
  });

  it('reads a block meta with its manifest and seen_at_ms; a meta without a manifest is refused', () => {
    const json = JSON.stringify(records.block);
    const meta = readMessage('blocks', { key, value: Buffer.from(json), headers: { seen_at_ms: '1700000000000', mc_seqno: '77', manifest } }, at('1', 0));
    expect(meta.items).toEqual([{ kind: 'blocks', record: records.block, json, seenAtMs: 1_700_000_000_000, manifest: JSON.parse(manifest) }]);
    expect(meta.receipt).toMatchObject({ kind: 'block', records: 1, expect_transactions: records.transactions.length, expect_messages: records.messages.length, gen_utime: Number(records.block.gen_utime) });
    const bare = readMessage('blocks', { key, value: Buffer.from(json), headers: { mc_seqno: '77' } }, at('2', 0));
    expect(bare.items).toEqual([]);
    expect(bare.dead.map((d) => d.reason)).toEqual(['block meta has no manifest header']);
    expect(bare.receipt).toMatchObject({ kind: 'block', records: 0, dead: 1 });
  });

  it('cuts a transaction with embedded messages down to their hashes; the rows the store builds are unchanged', () => {
    const out = readMessage('transactions', { key, value: bundle(records.transactions.map((t) => JSON.stringify(t))) }, at('3'));
    const items = out.items as Extract<Item, { kind: 'transactions' }>[];
    expect(items.every((t) => isTransactionRow(JSON.parse(t.json)))).toBe(true);
    expect(batchRows({ ...emptyBatch(), transactions: items })).toEqual(batchRows(recordBatch({ transactions: records.transactions })));
  });

  it('refuses a message without a value, a record over the size limit, and gives no receipt to what names no block', () => {
    expect(readMessage('messages', { key: null, value: null }, at('4'))).toEqual({ items: [], dead: [{ key: null, value: null, reason: 'messages message has no value', source: at('4'), line: null }], receipt: null });
    const big = readMessage('messages', { key, value: Buffer.from(JSON.stringify(records.messages[0])), headers: { mc_seqno: '77' } }, at('5'), 100);
    expect(big.dead[0].reason).toMatch(/messages record of \d+ characters is over the 100-character record limit/);
    expect(readMessage('messages', { key: Buffer.from('garbage'), value: Buffer.from('x'), headers: { mc_seqno: '77' } }, at('6')).receipt).toBeNull();
  });

  it('never throws on random bytes', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 2000; i++) {
      const value = Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256)));
      for (const kind of ['transactions', 'messages', 'accountStates', 'blocks', 'traces', 'actions', 'traceBatches'] as const) expect(() => readMessage(kind, { key, value, headers: { manifest: value } }, at('7'))).not.toThrow();
    }
  });

  it('maps the decoder topics to record kinds', () => {
    const kinds = topicKinds(topicNames('x_'));
    expect([...kinds]).toEqual([
      ['x_ton.transactions', 'transactions'],
      ['x_ton.messages', 'messages'],
      ['x_ton.account_states', 'accountStates'],
      ['x_ton.block_meta', 'blocks'],
      ['x_ton.traces', 'traces'],
      ['x_ton.actions', 'actions'],
      ['x_ton.trace_batches', 'traceBatches'],
    ]);
  });

  it("reads the tracer's trace and action bundles with a receipt of their batch keyed by the trace, refusing a broken line", () => {
    const h = (n: number) => Buffer.alloc(32, n).toString('base64');
    const trace = {
      trace_id: h(1), external_hash: h(2), external_hash_norm: null, mc_seqno_start: 5, mc_seqno_end: 6, start_lt: '10', start_utime: 100, end_lt: '12', end_utime: 101,
      trace_info: { trace_state: 'complete', messages: 2, transactions: 2, pending_messages: 0, classification_state: 'ok' }, is_incomplete: false,
      nodes: [
        { tx_hash: h(1), account: `0:${'A'.repeat(64)}`, lt: '10', in_msg_hash: h(2), parent: null, out_msgs: 1 },
        { tx_hash: h(3), account: `0:${'B'.repeat(64)}`, lt: '12', in_msg_hash: h(4), parent: h(1), out_msgs: 0 },
      ],
    };
    const action = {
      action_id: h(9), trace_id: h(1), type: 'ton_transfer', success: true, start_lt: '11', end_lt: '12', start_utime: 100, end_utime: 101,
      trace_end_lt: '12', trace_end_utime: 101, trace_mc_seqno_end: 6, transactions: [h(1), h(3)], accounts: [`0:${'A'.repeat(64)}`], details: {}, parent_action_id: null, ancestor_type: [],
    };
    const traceKey = Buffer.from(h(1));
    const mark = { first_mc_seqno: 0, expect_traces: 0, expect_actions: 0, written_ms: 99 };
    const traces = readMessage('traces', { key: traceKey, value: Buffer.from(JSON.stringify(trace)), headers: { mc_seqno: Buffer.from('6') } }, at('1'), undefined, 99);
    expect(traces).toMatchObject({ dead: [], receipt: null, items: [{ kind: 'traces', record: trace }] });
    expect(traces.traceReceipt).toEqual({ mc_seqno: 6, kind: 'traces', trace_id: h(1), records: 1, dead: 0, ...mark });
    const actions = readMessage('actions', { key: traceKey, value: bundle([JSON.stringify(action), JSON.stringify({ ...action, type: "x'; DROP" })]), headers: { mc_seqno: '6' } }, at('2'), undefined, 99);
    expect(actions.items.map((i) => i.record)).toEqual([action]);
    expect(actions.dead.map((d) => d.reason)).toEqual([expect.stringContaining('field type')]);
    expect(actions.receipt).toBeNull();
    // The refused line is counted as dead: the batch is not held for a record that will never come.
    expect(actions.traceReceipt).toEqual({ mc_seqno: 6, kind: 'actions', trace_id: h(1), records: 1, dead: 1, ...mark });
    // A tracer older than the batch marks names no batch: stored, without a receipt.
    expect(readMessage('traces', { key: traceKey, value: Buffer.from(JSON.stringify(trace)) }, at('3')).traceReceipt).toBeUndefined();
    const rows = batchRows({ ...emptyBatch(), traces: traces.items as never, actions: actions.items as never });
    expect(rows.traces).toMatchObject([{ trace_id: h(1), end_lt: '12', tx_hashes: `['${h(1)}','${h(3)}']`, accounts: `['0:${'A'.repeat(64)}','0:${'B'.repeat(64)}']`, trace_state: 'complete' }]);
    expect(rows.actions).toMatchObject([{ action_id: h(9), tx_hashes: `['${h(1)}','${h(3)}']`, ancestor_type: '[]', parent_action_id: '' }]);
  });

  it("reads the tracer's batch mark into a receipt of its own, and refuses a broken one", () => {
    const value = JSON.stringify({ mc_seqno: 8, first_mc_seqno: 7, traces: 3, actions: 5 });
    const mark = readMessage('traceBatches', { key: Buffer.from('8'), value: Buffer.from(value) }, at('4', 0), undefined, 42);
    expect(mark.dead).toEqual([]);
    expect(mark.traceReceipt).toEqual({ mc_seqno: 8, kind: 'batch', trace_id: '', records: 1, dead: 0, first_mc_seqno: 7, expect_traces: 3, expect_actions: 5, written_ms: 42 });
    expect(batchRows({ ...emptyBatch(), ...batchOf(mark) }).trace_receipts).toEqual([mark.traceReceipt]);
    for (const bad of ['{"mc_seqno":8}', JSON.stringify({ mc_seqno: 8, first_mc_seqno: 9, traces: 0, actions: 0 }), '[]', 'nope']) {
      const out = readMessage('traceBatches', { key: Buffer.from('8'), value: Buffer.from(bad) }, at('5', 0));
      expect(out.traceReceipt).toBeUndefined();
      expect(out.dead).toHaveLength(1);
    }
  });
});

/** The batch an accumulator cuts of one consumed message. */
function batchOf(consumed: ReturnType<typeof readMessage>) {
  const acc = createAccumulator(() => 0);
  acc.add(consumed, at('0'));
  return acc.take()!.batch;
}

describe('createAccumulator()', () => {
  it('cuts batches with per-partition ends, block marks, dead letters and receipts, ids increasing', () => {
    const acc = createAccumulator(() => 5);
    expect(acc.take()).toBeUndefined();
    acc.add(readMessage('blocks', { key, value: Buffer.from(JSON.stringify(records.block)), headers: { seen_at_ms: '4', mc_seqno: '77', manifest } }, at('7', 0)), { topic: 'm', partition: 0, offset: '7' });
    acc.add(readMessage('transactions', { key, value: Buffer.from('{bad') }, at('12')), { topic: 't', partition: 2, offset: '12' });
    acc.add({ items: [], dead: [], receipt: null }, { topic: 't', partition: 2, offset: '11' });
    const first = acc.take()!;
    expect(first).toMatchObject({ id: 1, records: 1, firstAtMs: 5, blocks: [{ mcSeqno: 77, seenAtMs: 4 }] });
    expect(first.batch.blocks).toHaveLength(1);
    expect(first.dead.map((d) => d.reason)).toEqual([expect.stringContaining('not JSON')]);
    expect(first.batch.receipts.map((r) => r.kind)).toEqual(['block']);
    expect(first.ends).toEqual([
      { topic: 'm', partition: 0, next: 8n },
      { topic: 't', partition: 2, next: 13n },
    ]);
    acc.add({ items: [], dead: [], receipt: null }, { topic: 't', partition: 2, offset: '13' });
    expect(acc.take()).toMatchObject({ id: 2, records: 0, dead: [] });
  });
});
