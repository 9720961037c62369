import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBlock, type TransactionRow } from '@tonstream/block';
import { topicNames } from '@tonstream/bus';
import { batchRows, emptyBatch } from '@tonstream/store';
import { describe, expect, it } from 'vitest';
import { createAccumulator } from './accumulator.js';
import { InvalidRecordError, parseItem, topicKinds } from './records.js';

const block = { workchain: 0, shard: '8000000000000000', seqno: 9, root_hash: 'r', gen_utime: '1', mc_block_seqno: 77 };

describe('parseItem()', () => {
  it('reads a block meta with seen_at_ms from its header', () => {
    const item = parseItem('blocks', JSON.stringify(block), { seen_at_ms: Buffer.from('1700000000000') });
    expect(item).toEqual({ kind: 'blocks', record: block, seenAtMs: 1_700_000_000_000 });
    expect(parseItem('blocks', JSON.stringify(block))).toMatchObject({ seenAtMs: null });
  });

  it('keeps only the message hashes of a transaction; the rows the store builds are unchanged', () => {
    const { transactions } = decodeBlock(readFileSync(join(import.meta.dirname, '../../../test/fixtures/mainnet/blocks/wc0_8000000000000000_71398501.boc')));
    const slim = transactions.map((t) => parseItem('transactions', JSON.stringify(t)).record as TransactionRow);
    expect(slim[0].out_msgs.every((m) => Object.keys(m).join() === 'hash')).toBe(true);
    expect(slim.filter((t) => t.in_msg !== null).every((t) => Object.keys(t.in_msg!).join() === 'hash')).toBe(true);
    expect(batchRows({ ...emptyBatch(), transactions: slim })).toEqual(batchRows({ ...emptyBatch(), transactions }));
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
