import type { MessageRow, TransactionRow } from '@tonstream/records';
import { describe, expect, it } from 'vitest';
import { createCollector, type Consumed, type Source } from './collector.js';

const tx = (hash: string, inMsg: string | null = null, outMsgs: string[] = []) => ({ hash, in_msg: inMsg && { hash: inMsg }, out_msgs: outMsgs.map((h) => ({ hash: h })) }) as TransactionRow;
const msg = (hash: string, tx: string, direction: 'in' | 'out' = 'in') => ({ hash, direction, tx_hash: tx }) as MessageRow;
const manifest = (transactions: number, messages: number, mc_blocks?: number, index_from?: number) => ({ transactions, messages, account_states: 0, ...(mc_blocks ? { mc_blocks } : {}), ...(index_from ? { index_from } : {}) });
const on = (topic: string, partition = 0): Source => ({ topic, partition });
const OPTIONS = { startMarginMcBlocks: 3, skipIncompleteAfterMcBlocks: 2, giveUp: { afterMcBlocks: 3, afterMs: 60_000 } };
const NOW = 1_000_000;

/** A whole masterchain block `n` (no shard blocks) with one transaction, its records on partition `p` of each topic. */
const wholeBlock = (n: number, p = 0): [Consumed, Source][] => [
  [{ kind: 'transactions', block: `-1:8000000000000000:${n}`, mcSeqno: n, records: [tx(`t${n}`, `in${n}`)] }, on('t', p)],
  [{ kind: 'messages', block: `-1:8000000000000000:${n}`, mcSeqno: n, records: [msg(`in${n}`, `t${n}`)] }, on('g', p)],
  [{ kind: 'meta', block: `-1:8000000000000000:${n}`, mcSeqno: n, masterchain: true, manifest: manifest(1, 1, 1, n === 1 ? 1 : undefined) }, on('m', p)],
];

/** Blocks 1..4 out; block 5 commits a shard block the decoder dead-lettered (only its masterchain block comes). */
function afterADeadLetteredShardBlock() {
  const c = createCollector(OPTIONS);
  for (let n = 1; n <= 4; n++) for (const [m, s] of wholeBlock(n)) c.add(m, s);
  for (let n = 1; n <= 4; n++) expect(c.take(NOW)?.mcSeqno).toBe(n);
  c.add({ kind: 'transactions', block: '-1:8000000000000000:5', mcSeqno: 5, records: [tx('mc5', 'in5', ['out5'])] }, on('t'));
  c.add({ kind: 'messages', block: '-1:8000000000000000:5', mcSeqno: 5, records: [msg('in5', 'mc5'), msg('out5', 'mc5', 'out')] }, on('g'));
  c.add({ kind: 'meta', block: '-1:8000000000000000:5', mcSeqno: 5, masterchain: true, manifest: manifest(1, 2, 2) }, on('m'));
  return c;
}

describe('the streaming collector, after its first block is out', () => {
  it('lets a block that never completes go with what arrived once a block afterMcBlocks later is whole', () => {
    const c = afterADeadLetteredShardBlock();
    for (let n = 6; n <= 7; n++) for (const [m, s] of wholeBlock(n)) c.add(m, s);
    expect(c.take(NOW)).toBeUndefined();
    expect(c.stalled()).toEqual({ mcSeqno: 5, since: NOW, newestWhole: 7, missing: '1 of 2 blocks whole' });
    for (const [m, s] of wholeBlock(8)) c.add(m, s);
    const given = c.take(NOW + 1)!;
    expect(given).toMatchObject({ mcSeqno: 5, missing: '1 of 2 blocks whole', transactions: [{ hash: 'mc5' }] });
    expect(given.messages.map((m) => m.hash).sort()).toEqual(['in5', 'out5']);
    expect(c.stalled()).toBeUndefined();
    for (let n = 6; n <= 8; n++) expect(c.take(NOW + 2)).toMatchObject({ mcSeqno: n, transactions: [{ hash: `t${n}` }] });
    expect(c.waiting).toBe(0);
    // Its records replayed later are not handed out again.
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('late')] }, on('t', 1));
    expect(c.take(NOW + 3)).toBeUndefined();
    expect(c.waiting).toBe(0);
  });

  it('keeps the transactions of a partial block whose message rows arrived', () => {
    const c = afterADeadLetteredShardBlock();
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(3, 4) }, on('m', 1));
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('child', 'out5'), tx('half', null, ['gone'])] }, on('t', 1));
    c.add({ kind: 'messages', block: '0:8000000000000000:9', mcSeqno: 5, records: [msg('out5', 'child'), msg('x', 'lost')] }, on('g', 1));
    for (let n = 6; n <= 8; n++) for (const [m, s] of wholeBlock(n, n % 2)) c.add(m, s);
    const given = c.take(NOW)!;
    expect(given.missing).toBe('1 of 2 blocks whole; 0:8000000000000000:9 has 2 of 3 transactions, 2 of 4 messages, 0 of 0 account states');
    expect(given.transactions.map((t) => t.hash).sort()).toEqual(['child', 'mc5']);
    expect(given.messages.map((m) => `${m.direction}:${m.hash}:${m.tx_hash}`).sort()).toEqual(['in:in5:mc5', 'in:out5:child', 'out:out5:mc5']);
  });

  it('waits for an assigned partition that has not delivered records of later blocks, until afterMs', () => {
    const c = afterADeadLetteredShardBlock();
    c.assign([on('t', 0), on('t', 1), on('g', 0), on('m', 0)]);
    for (let n = 6; n <= 12; n++) for (const [m, s] of wholeBlock(n)) c.add(m, s);
    expect(c.take(NOW)).toBeUndefined();
    expect(c.take(NOW + OPTIONS.giveUp.afterMs - 1)).toBeUndefined();
    expect(c.take(NOW + OPTIONS.giveUp.afterMs)).toMatchObject({ mcSeqno: 5, missing: '1 of 2 blocks whole' });
  });

  it('does not give up on a block that trails later ones by less than the bound', () => {
    const c = afterADeadLetteredShardBlock();
    for (let n = 6; n <= 7; n++) for (const [m, s] of wholeBlock(n)) c.add(m, s);
    expect(c.take(NOW + 10 * OPTIONS.giveUp.afterMs)).toBeUndefined();
    c.add({ kind: 'meta', block: '0:8000000000000000:9', mcSeqno: 5, masterchain: false, manifest: manifest(1, 1) }, on('m', 1));
    c.add({ kind: 'transactions', block: '0:8000000000000000:9', mcSeqno: 5, records: [tx('child', 'out5')] }, on('t', 1));
    c.add({ kind: 'messages', block: '0:8000000000000000:9', mcSeqno: 5, records: [msg('out5', 'child')] }, on('g', 1));
    const g = c.take(NOW)!;
    expect(g.missing).toBeUndefined();
    expect(g.transactions.map((t) => t.hash).sort()).toEqual(['child', 'mc5']);
  });
});
