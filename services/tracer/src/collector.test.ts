import type { MessageRow, TransactionRow } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { createCollector, type Consumed } from './collector.js';

const tx = (hash: string, inMsg: string | null = null, outMsgs: string[] = []) => ({ hash, in_msg: inMsg && { hash: inMsg }, out_msgs: outMsgs.map((h) => ({ hash: h })) }) as TransactionRow;
const msg = (hash: string, tx: string, direction: 'in' | 'out' = 'in') => ({ hash, direction, tx_hash: tx }) as MessageRow;
const at = (topic: string, partition: number, offset: number) => ({ topic, partition, offset: String(offset) });
const manifest = (transactions: number, messages: number, mc_blocks?: number) => ({ transactions, messages, account_states: 0, ...(mc_blocks ? { mc_blocks } : {}) });
const GIVE_UP = { afterMcBlocks: 3, afterMs: 60_000 };
const NOW = 1_000_000;

describe('createCollector()', () => {
  it('hands out a masterchain block only when its meta says every block and record is there', () => {
    const c = createCollector({ lastDone: 4, giveUp: GIVE_UP });
    c.add({ kind: 'meta', block: '-1:8000000000000000:5', mcSeqno: 5, masterchain: true, manifest: manifest(1, 1, 2) }, at('m', 0, 0));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:5', mcSeqno: 5, records: [tx('a')] }, at('t', 0, 0));
    c.add({ kind: 'messages', block: '-1:8000000000000000:5', mcSeqno: 5, records: [msg('x', 'a')] }, at('g', 0, 0));
    expect(c.ready(NOW)).toBeUndefined(); // the shard block it commits is missing
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('b')] }, at('t', 1, 0));
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(2, 0) }, at('m', 0, 1));
    expect(c.ready(NOW)).toBeUndefined(); // one of its two transactions is missing
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('c'), tx('b')] }, at('t', 1, 1));
    const g = c.ready(NOW)!;
    expect(g.mcSeqno).toBe(5);
    expect(g.missing).toBeUndefined();
    expect(g.transactions.map((t) => t.hash).sort()).toEqual(['a', 'b', 'c']);
    expect(g.messages.map((m) => m.hash)).toEqual(['x']);
  });

  it('commits a partition only up to the oldest message of a block not done, and skips replays of done blocks', () => {
    const c = createCollector({ lastDone: null, giveUp: GIVE_UP });
    c.add({ kind: 'meta', block: '-1:8000000000000000:7', mcSeqno: 7, masterchain: true, manifest: { ...manifest(1, 0, 1), index_from: 7 } }, at('m', 0, 10));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:8', mcSeqno: 8, records: [tx('later')] }, at('t', 0, 20));
    c.add({ kind: 'transactions', block: '-1:8000000000000000:7', mcSeqno: 7, records: [tx('now')] }, at('t', 0, 21));
    c.add({ kind: 'other' }, at('m', 0, 11));
    expect(c.ready(NOW)!.mcSeqno).toBe(7);
    // Offset 20 still holds block 8's record: partition t/0 must not move past it.
    expect(c.done(7)).toEqual(
      expect.arrayContaining([
        { topic: 'm', partition: 0, offset: '12' },
        { topic: 't', partition: 0, offset: '20' },
      ]),
    );
    c.add({ kind: 'transactions', block: '-1:8000000000000000:7', mcSeqno: 7, records: [tx('now')] }, at('t', 1, 3));
    expect(c.commits()).toContainEqual({ topic: 't', partition: 1, offset: '4' });
    expect(c.ready(NOW)).toBeUndefined();
    c.add({ kind: 'meta', block: '-1:8000000000000000:8', mcSeqno: 8, masterchain: true, manifest: manifest(1, 0, 1) }, at('m', 0, 12));
    expect(c.ready(NOW)!.transactions.map((t) => t.hash)).toEqual(['later']);
    expect(c.done(8)).toContainEqual({ topic: 't', partition: 0, offset: '22' });
    expect(c.waiting).toBe(0);
  });
});

describe('a masterchain block that never completes', () => {
  /** A whole masterchain block `n` (no shard blocks) with one transaction, its records on partition `p` of each topic at offset `n`. */
  const wholeBlock = (n: number, p = 0): [Consumed, ReturnType<typeof at>][] => [
    [{ kind: 'transactions', block: `-1:8000000000000000:${n}`, mcSeqno: n, records: [tx(`t${n}`, `in${n}`)] }, at('t', p, n)],
    [{ kind: 'messages', block: `-1:8000000000000000:${n}`, mcSeqno: n, records: [msg(`in${n}`, `t${n}`)] }, at('g', p, n)],
    [{ kind: 'meta', block: `-1:8000000000000000:${n}`, mcSeqno: n, masterchain: true, manifest: manifest(1, 1, 1) }, at('m', p, n)],
  ];

  /** Block 5 commits a shard block the decoder dead-lettered: its masterchain block's records and meta are all that come. */
  function withDeadLetteredShardBlock() {
    const c = createCollector({ lastDone: 4, giveUp: GIVE_UP });
    c.add({ kind: 'transactions', block: '-1:8000000000000000:5', mcSeqno: 5, records: [tx('mc5', 'in5', ['out5'])] }, at('t', 0, 5));
    c.add({ kind: 'messages', block: '-1:8000000000000000:5', mcSeqno: 5, records: [msg('in5', 'mc5'), msg('out5', 'mc5', 'out')] }, at('g', 0, 5));
    c.add({ kind: 'meta', block: '-1:8000000000000000:5', mcSeqno: 5, masterchain: true, manifest: manifest(1, 2, 2) }, at('m', 0, 5));
    return c;
  }

  it('is traced with the records that arrived once a block afterMcBlocks later is whole, and frees its partitions', () => {
    const c = withDeadLetteredShardBlock();
    for (let n = 6; n <= 7; n++) for (const [m, p] of wholeBlock(n)) c.add(m, p);
    expect(c.ready(NOW)).toBeUndefined();
    expect(c.stalled()).toMatchObject({ mcSeqno: 5, since: NOW, newestWhole: 7, missing: '1 of 2 blocks whole' });
    // Nothing is committable past block 5's records while it waits.
    expect(c.commits()).toEqual(expect.arrayContaining([{ topic: 't', partition: 0, offset: '5' }]));

    for (const [m, p] of wholeBlock(8)) c.add(m, p);
    const g = c.ready(NOW + 1)!;
    expect(g).toMatchObject({ mcSeqno: 5, missing: '1 of 2 blocks whole' });
    expect(g.transactions.map((t) => t.hash)).toEqual(['mc5']);
    expect(g.messages.map((m) => m.hash).sort()).toEqual(['in5', 'out5']);
    expect(c.stalled()).toBeUndefined();
    // Done: every partition moves on to block 6's records, and blocks 6.. follow in order.
    expect(c.done(5)).toEqual(expect.arrayContaining([{ topic: 't', partition: 0, offset: '6' }, { topic: 'g', partition: 0, offset: '6' }, { topic: 'm', partition: 0, offset: '6' }]));
    for (let n = 6; n <= 8; n++) {
      const next = c.ready(NOW + 2)!;
      expect(next).toMatchObject({ mcSeqno: n, transactions: [{ hash: `t${n}` }] });
      expect(next.missing).toBeUndefined();
      c.done(n);
    }
    expect(c.waiting).toBe(0);
    // The dead-lettered block replayed from the dead-letter topic later: dropped, and it holds no offset back.
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('late')] }, at('t', 1, 40));
    expect(c.ready(NOW + 3)).toBeUndefined();
    expect(c.commits()).toContainEqual({ topic: 't', partition: 1, offset: '41' });
  });

  it('keeps the transactions of a partial block whose message rows arrived, and names what is missing', () => {
    const c = withDeadLetteredShardBlock();
    // The shard block: 3 transactions, one line refused (tx 'lost'); 'half' arrived without its out message row.
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(3, 4) }, at('m', 1, 0));
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('child', 'out5'), tx('half', null, ['gone'])] }, at('t', 1, 0));
    c.add({ kind: 'messages', block: '0:8000000000000000:9', mcSeqno: 5, records: [msg('out5', 'child'), msg('x', 'lost')] }, at('g', 1, 0));
    for (let n = 6; n <= 8; n++) for (const [m, p] of wholeBlock(n, n % 2)) c.add(m, p);
    const g = c.ready(NOW)!;
    expect(g.missing).toBe('1 of 2 blocks whole; 0:8000000000000000:9 has 2 of 3 transactions, 2 of 4 messages, 0 of 0 account states');
    expect(g.transactions.map((t) => t.hash).sort()).toEqual(['child', 'mc5']);
    expect(g.messages.map((m) => `${m.direction}:${m.hash}:${m.tx_hash}`).sort()).toEqual(['in:in5:mc5', 'in:out5:child', 'out:out5:mc5']);
  });

  it('is given up on with nothing of it read, its masterchain meta included', () => {
    const c = createCollector({ lastDone: 4, giveUp: GIVE_UP });
    for (let n = 6; n <= 8; n++) for (const [m, p] of wholeBlock(n)) c.add(m, p);
    expect(c.ready(NOW)).toMatchObject({ mcSeqno: 5, transactions: [], messages: [], missing: 'its masterchain block meta was not read' });
  });

  it('waits for a partition that has not delivered records of later blocks, until afterMs', () => {
    const c = withDeadLetteredShardBlock();
    // Partition 1 of the transactions topic is assigned but silent: block 5's records may still be there.
    c.assign([{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 'g', partition: 0 }, { topic: 'm', partition: 0 }]);
    for (let n = 6; n <= 12; n++) for (const [m, p] of wholeBlock(n)) c.add(m, p);
    expect(c.ready(NOW)).toBeUndefined();
    expect(c.ready(NOW + GIVE_UP.afterMs - 1)).toBeUndefined();
    expect(c.stalled()).toMatchObject({ mcSeqno: 5, since: NOW, newestWhole: 12 });
    expect(c.ready(NOW + GIVE_UP.afterMs)).toMatchObject({ mcSeqno: 5, missing: '1 of 2 blocks whole' });

    // Same stall, but the silent partition speaks: a record of a later block there means block 5's cannot follow.
    const d = withDeadLetteredShardBlock();
    d.assign([{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 'g', partition: 0 }, { topic: 'm', partition: 0 }]);
    for (let n = 6; n <= 12; n++) for (const [m, p] of wholeBlock(n)) d.add(m, p);
    expect(d.ready(NOW)).toBeUndefined();
    d.add({ kind: 'transactions', block: '0:8000000000000000:20', mcSeqno: 6, records: [] }, at('t', 1, 0));
    expect(d.ready(NOW + 1)).toMatchObject({ mcSeqno: 5 });
  });

  it('does not give up on a block that trails later ones by less than the bound', () => {
    const c = withDeadLetteredShardBlock();
    for (let n = 6; n <= 7; n++) for (const [m, p] of wholeBlock(n)) c.add(m, p);
    expect(c.ready(NOW + 10 * GIVE_UP.afterMs)).toBeUndefined();
    // Its shard block arrives after all: whole, nothing missing.
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(1, 1) }, at('m', 1, 0));
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('child', 'out5')] }, at('t', 1, 0));
    c.add({ kind: 'messages', block: '0:8000000000000000:9', mcSeqno: 5, records: [msg('out5', 'child')] }, at('g', 1, 0));
    const g = c.ready(NOW + 10 * GIVE_UP.afterMs)!;
    expect(g.missing).toBeUndefined();
    expect(g.transactions.map((t) => t.hash).sort()).toEqual(['child', 'mc5']);
  });
});
