import { type MessageRow, parseRecord, type TransactionRow } from '@tonstream/records';
import { blockKey, bundleLines, encodeRawBlock, partitionForKey } from '@tonstream/bus';
import { describe, expect, it } from 'vitest';
import { decodeMessage, type OutRecord, type RecordPartitions } from './decode-message.js';
import { fixtureRawBlocks } from './test-support/raw-blocks.js';

const fixtures = fixtureRawBlocks({ withAccountState: true, seenAtMs: 1_700_000_000_123 });
const big = fixtures.find((f) => f.file.includes('71398501'))!;
const PARTITIONS: RecordPartitions = { transactions: 4, messages: 3, accountStates: 2 };

/** The records of a topic's bundles, each with the partition its bundle went to. */
function unbundle<T>(bundles: OutRecord[]): { record: T; partition: number }[] {
  return bundles.flatMap((b) => bundleLines(b.value).map((line) => ({ record: JSON.parse(line) as T, partition: b.partition! })));
}

describe('decodeMessage()', () => {
  it('bundles a block\'s records per partition of their keys, keyed by the block; the meta carries seen_at_ms', () => {
    const out = decodeMessage(encodeRawBlock(big.raw), null, PARTITIONS);
    if (!out.ok) throw out.error;
    const d = out.decoded;
    expect(d.key).toBe(blockKey(big.raw));
    expect(d.txCount).toBe(269);
    expect(d.transactions.length).toBeLessThanOrEqual(PARTITIONS.transactions);
    expect([...d.transactions, ...d.messages, ...d.accountStates].every((b) => b.key === d.key)).toBe(true);

    const txs = unbundle<TransactionRow>(d.transactions);
    expect(txs.map((t) => t.record.hash).sort()).toEqual(big.records.transactions.map((t) => t.hash).sort());
    expect(txs.every((t) => t.partition === partitionForKey(t.record.account, PARTITIONS.transactions))).toBe(true);
    // Messages travel on their own topic; a transaction names them by hash.
    expect(txs.every((t) => t.record.out_msgs.every((m) => Object.keys(m).join() === 'hash'))).toBe(true);

    const msgs = unbundle<MessageRow>(d.messages);
    expect(msgs.map((m) => m.record)).toHaveLength(big.records.messages.length);
    expect(new Set(msgs.map((m) => `${m.record.hash}|${m.record.direction}`))).toEqual(new Set(big.records.messages.map((m) => `${m.hash}|${m.direction}`)));
    expect(msgs.every((m) => m.partition === partitionForKey(m.record.hash, PARTITIONS.messages))).toBe(true);

    expect(JSON.parse(d.meta.value.toString())).toEqual(big.records.block);
    expect(d.meta).toMatchObject({ key: d.key, headers: { seen_at_ms: '1700000000123', mc_seqno: String(big.raw.mc_seqno) } });
    expect(d.payload.length).toBe([...d.transactions, ...d.messages, ...d.accountStates, d.meta].reduce((n, r) => n + r.value.length, 0));
    expect(d.transactions[0].value.buffer).toBe(d.payload.buffer);
  });

  it('decodes the attached account states with the block context', () => {
    const withState = fixtures.find((f) => f.raw.account_states.length > 0)!;
    const out = decodeMessage(encodeRawBlock(withState.raw), null, PARTITIONS);
    if (!out.ok) throw out.error;
    const a = withState.raw.account_states[0];
    const [state] = unbundle<Record<string, unknown>>(out.decoded.accountStates);
    expect(state.partition).toBe(partitionForKey(a.account, PARTITIONS.accountStates));
    expect(state.record).toMatchObject({
      account: a.account,
      status: 'uninit',
      balance: '1000000000',
      last_trans_lt: a.last_trans_lt,
      last_trans_hash: a.last_trans_hash,
      mc_block_seqno: withState.raw.mc_seqno,
      gen_utime: Number(withState.records.block.gen_utime),
      // Its contract facts, read here once for every consumer: no code, nothing to say.
      contract: { interfaces: [], methods: null },
    });
    expect(() => parseRecord('accountStates', JSON.stringify(state.record))).not.toThrow();
  });

  it('leaves out an unreadable account state but keeps the block and its other records', () => {
    const withState = fixtures.find((f) => f.raw.account_states.length > 0)!;
    const good = withState.raw.account_states[0];
    const raw = { ...withState.raw, account_states: [{ ...good, account: '0:BAD', boc: new Uint8Array([1, 2, 3]) }, good] };
    const out = decodeMessage(encodeRawBlock(raw), null, PARTITIONS);
    if (!out.ok) throw out.error;
    expect(out.decoded.skippedStates).toEqual([{ account: '0:BAD', error: expect.stringContaining('truncated') }]);
    expect(unbundle<{ account: string }>(out.decoded.accountStates).map((s) => s.record.account)).toEqual([good.account]);
    expect(unbundle(out.decoded.transactions)).toHaveLength(withState.records.transactions.length);
  });

  it('classifies failures by kind and keeps the block key when the header is readable', () => {
    expect(decodeMessage(Buffer.from('garbage'), 'k1', PARTITIONS)).toMatchObject({ ok: false, kind: 'codec', key: 'k1' });
    expect(decodeMessage(null, 'k2', PARTITIONS)).toMatchObject({ ok: false, kind: 'codec', key: 'k2' });

    const notBoc = { ...big.raw, boc: Buffer.from('not a bag of cells at all') };
    expect(decodeMessage(encodeRawBlock(notBoc), 'k3', PARTITIONS)).toMatchObject({ ok: false, kind: 'boc', key: blockKey(big.raw) });

    // A valid BoC (an Account) that is not a Block.
    const accountBoc = fixtures.find((f) => f.raw.account_states.length > 0)!.raw.account_states[0].boc;
    const wrongCell = { ...big.raw, boc: accountBoc };
    expect(decodeMessage(encodeRawBlock(wrongCell), null, PARTITIONS)).toMatchObject({ ok: false, kind: 'tlb', key: blockKey(big.raw) });
  });
});
