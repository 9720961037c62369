import type { MessageRow, TransactionRow } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { createCollector } from './collector.js';

const tx = (hash: string) => ({ hash }) as TransactionRow;
const msg = (hash: string, tx: string) => ({ hash, direction: 'in', tx_hash: tx }) as MessageRow;
const at = (topic: string, partition: number, offset: number) => ({ topic, partition, offset: String(offset) });
const manifest = (transactions: number, messages: number, mc_blocks?: number) => ({ transactions, messages, account_states: 0, ...(mc_blocks ? { mc_blocks } : {}) });

describe('createCollector()', () => {
  it('hands out a masterchain block only when its meta says every block and record is there', () => {
    const c = createCollector({ lastDone: 4 });
    c.add({ kind: 'meta', block: '-1:8000000000000000:5', mcSeqno: 5, masterchain: true, manifest: manifest(1, 1, 2) }, at('m', 0, 0));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:5', mcSeqno: 5, records: [tx('a')] }, at('t', 0, 0));
    c.add({ kind: 'messages', block: '-1:8000000000000000:5', mcSeqno: 5, records: [msg('x', 'a')] }, at('g', 0, 0));
    expect(c.ready()).toBeUndefined(); // the shard block it commits is missing
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('b')] }, at('t', 1, 0));
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(2, 0) }, at('m', 0, 1));
    expect(c.ready()).toBeUndefined(); // one of its two transactions is missing
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('c'), tx('b')] }, at('t', 1, 1));
    const g = c.ready()!;
    expect(g.mcSeqno).toBe(5);
    expect(g.transactions.map((t) => t.hash).sort()).toEqual(['a', 'b', 'c']);
    expect(g.messages.map((m) => m.hash)).toEqual(['x']);
  });

  it('commits a partition only up to the oldest message of a block not done, and skips replays of done blocks', () => {
    const c = createCollector({ lastDone: null });
    c.add({ kind: 'meta', block: '-1:8000000000000000:7', mcSeqno: 7, masterchain: true, manifest: { ...manifest(1, 0, 1), index_from: 7 } }, at('m', 0, 10));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:8', mcSeqno: 8, records: [tx('later')] }, at('t', 0, 20));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:7', mcSeqno: 7, records: [tx('now')] }, at('t', 0, 21));
    c.add({ kind: 'other' }, at('m', 0, 11));
    expect(c.ready()!.mcSeqno).toBe(7);
    // Offset 20 still holds block 8's record: partition t/0 must not move past it.
    expect(c.done(7)).toEqual(
      expect.arrayContaining([
        { topic: 'm', partition: 0, offset: '12' },
        { topic: 't', partition: 0, offset: '20' },
      ]),
    );
    c.add({ kind: 'transactions', block: '-1:8000000000000000:7', mcSeqno: 7, records: [tx('now')] }, at('t', 1, 3));
    expect(c.commits()).toContainEqual({ topic: 't', partition: 1, offset: '4' });
    expect(c.ready()).toBeUndefined();
    c.add({ kind: 'meta', block: '-1:8000000000000000:8', mcSeqno: 8, masterchain: true, manifest: manifest(1, 0, 1) }, at('m', 0, 12));
    expect(c.ready()!.transactions.map((t) => t.hash)).toEqual(['later']);
    expect(c.done(8)).toContainEqual({ topic: 't', partition: 0, offset: '22' });
    expect(c.waiting).toBe(0);
  });
});
