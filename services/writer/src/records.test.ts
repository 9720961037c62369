import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock, isTransactionRow, transactionRow } from '@tonstream/block';
import { topicNames } from '@tonstream/bus';
import { batchRows, emptyBatch, recordBatch } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { createAccumulator } from './accumulator.js';
import { InvalidRecordError, type Item, parseBundle, parseItem, topicKinds } from './records.js';

const block = { workchain: 0, shard: '8000000000000000', seqno: 9, root_hash: 'r', gen_utime: '1', mc_block_seqno: 77 };

describe('parseItem()', () => {
  it('reads a block meta with seen_at_ms from its header', () => {
    const item = parseItem('blocks', JSON.stringify(block), { seen_at_ms: Buffer.from('1700000000000') });
    expect(item).toEqual({ kind: 'blocks', record: block, json: JSON.stringify(block), seenAtMs: 1_700_000_000_000 });
    expect(parseItem('blocks', JSON.stringify(block))).toMatchObject({ seenAtMs: null });
  });

  it('stores the consumed JSON text as it is', () => {
    const { transactions } = decodeBlock(readFileSync(join(import.meta.dirname, '../../../test/fixtures/mainnet/blocks/wc0_8000000000000000_71398501.boc')));
    const line = JSON.stringify(transactionRow(transactions[3]));
    expect(parseItem('transactions', line)).toMatchObject({ kind: 'transactions', json: line, record: { hash: transactions[3].hash } });
  });

  it('cuts a transaction with embedded messages down to their hashes; the rows the store builds are unchanged', () => {
    const { transactions } = decodeBlock(readFileSync(join(import.meta.dirname, '../../../test/fixtures/mainnet/blocks/wc0_8000000000000000_71398501.boc')));
    const items = transactions.map((t) => parseItem('transactions', JSON.stringify(t)) as Extract<Item, { kind: 'transactions' }>);
    expect(items[0].record.out_msgs.every((m) => Object.keys(m).join() === 'hash')).toBe(true);
    expect(items.filter((t) => t.record.in_msg !== null).every((t) => Object.keys(t.record.in_msg!).join() === 'hash')).toBe(true);
    expect(items.every((t) => isTransactionRow(JSON.parse(t.json)))).toBe(true);
    expect(batchRows({ ...emptyBatch(), transactions: items })).toEqual(batchRows(recordBatch({ transactions })));
  });

  it('reads a bundle line by line, skipping a bad line without its neighbours', () => {
    const other = { ...block, seqno: 10 };
    const value = Buffer.from([JSON.stringify(block), '{nope', JSON.stringify({ seqno: 1 }), JSON.stringify(other)].join('\n'));
    const { items, invalid } = parseBundle('blocks', value, { seen_at_ms: '5' });
    expect(items.map((i) => i.record)).toEqual([block, other]);
    expect(items.every((i) => i.kind === 'blocks' && i.seenAtMs === 5)).toBe(true);
    expect(invalid).toEqual([expect.stringContaining('not JSON'), expect.stringContaining('lacks workchain')]);
    expect(parseBundle('blocks', null)).toEqual({ items: [], invalid: ['blocks message has no value'] });
  });

  it('rejects what is not the topic\'s record with InvalidRecordError', () => {
    expect(() => parseItem('transactions', '{nope')).toThrow(InvalidRecordError);
    expect(() => parseItem('messages', '[1]')).toThrow(/not a JSON object/);
    expect(() => parseItem('transactions', JSON.stringify(block))).toThrow(/lacks account, lt, hash/);
  });

  it('maps the decoder topics to record kinds', () => {
    const kinds = topicKinds(topicNames('x_'));
    expect([...kinds]).toEqual([
      ['x_ton.transactions', 'transactions'],
      ['x_ton.messages', 'messages'],
      ['x_ton.account_states', 'accountStates'],
      ['x_ton.block_meta', 'blocks'],
    ]);
  });
});

describe('createAccumulator()', () => {
  it('cuts batches with per-partition ends and block marks, ids increasing', () => {
    const acc = createAccumulator(() => 5);
    expect(acc.take()).toBeUndefined();
    acc.add([parseItem('blocks', JSON.stringify(block), { seen_at_ms: '4' })], { topic: 'm', partition: 0, offset: '7' });
    acc.add([], { topic: 't', partition: 2, offset: '12' });
    acc.add([], { topic: 't', partition: 2, offset: '11' });
    const first = acc.take()!;
    expect(first).toMatchObject({ id: 1, records: 1, firstAtMs: 5, blocks: [{ mcSeqno: 77, seenAtMs: 4 }] });
    expect(first.batch.blocks).toHaveLength(1);
    expect(first.ends).toEqual([
      { topic: 'm', partition: 0, next: 8n },
      { topic: 't', partition: 2, next: 13n },
    ]);
    acc.add([], { topic: 't', partition: 2, offset: '13' });
    expect(acc.take()).toMatchObject({ id: 2, records: 0 });
  });
});
