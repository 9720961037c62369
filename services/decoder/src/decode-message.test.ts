import { blockKey, encodeRawBlock } from '@tonstream/bus';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './decode-message.js';
import { fixtureRawBlocks } from './test-support/raw-blocks.js';

const fixtures = fixtureRawBlocks({ withAccountState: true, seenAtMs: 1_700_000_000_123 });
const big = fixtures.find((f) => f.file.includes('71398501'))!;

describe('decodeMessage()', () => {
  it('turns a raw block into keyed JSON records for each topic, block meta carrying seen_at_ms', () => {
    const out = decodeMessage(encodeRawBlock(big.raw), null);
    if (!out.ok) throw out.error;
    const d = out.decoded;
    expect(d.key).toBe(blockKey(big.raw));
    expect(d.transactions).toHaveLength(269);
    expect(d.transactions.map((r) => JSON.parse(r.value.toString()).hash)).toEqual(big.records.transactions.map((t) => t.hash));
    expect(d.transactions.every((r, i) => r.key === big.records.transactions[i].account)).toBe(true);
    expect(d.messages).toHaveLength(big.records.messages.length);
    expect(d.messages.every((r) => r.key === JSON.parse(r.value.toString()).hash)).toBe(true);
    expect(JSON.parse(d.meta.value.toString())).toEqual(big.records.block);
    expect(d.meta).toMatchObject({ key: d.key, headers: { seen_at_ms: '1700000000123', mc_seqno: String(big.raw.mc_seqno) } });
    expect(d.payload.length).toBe([...d.transactions, ...d.messages, ...d.accountStates, d.meta].reduce((n, r) => n + r.value.length, 0));
    expect(d.transactions[0].value.buffer).toBe(d.payload.buffer);
  });

  it('decodes the attached account states with the block context', () => {
    const withState = fixtures.find((f) => f.raw.account_states.length > 0)!;
    const out = decodeMessage(encodeRawBlock(withState.raw), null);
    if (!out.ok) throw out.error;
    const state = JSON.parse(out.decoded.accountStates[0].value.toString());
    const a = withState.raw.account_states[0];
    expect(out.decoded.accountStates[0].key).toBe(a.account);
    expect(state).toMatchObject({
      account: a.account,
      status: 'uninit',
      balance: '1000000000',
      last_trans_lt: a.last_trans_lt,
      last_trans_hash: a.last_trans_hash,
      mc_block_seqno: withState.raw.mc_seqno,
      gen_utime: Number(withState.records.block.gen_utime),
    });
  });

  it('leaves out an unreadable account state but keeps the block and its other records', () => {
    const withState = fixtures.find((f) => f.raw.account_states.length > 0)!;
    const good = withState.raw.account_states[0];
    const raw = { ...withState.raw, account_states: [{ ...good, account: '0:BAD', boc: new Uint8Array([1, 2, 3]) }, good] };
    const out = decodeMessage(encodeRawBlock(raw), null);
    if (!out.ok) throw out.error;
    expect(out.decoded.skippedStates).toEqual([{ account: '0:BAD', error: expect.stringContaining('truncated') }]);
    expect(out.decoded.accountStates.map((r) => r.key)).toEqual([good.account]);
    expect(out.decoded.transactions).toHaveLength(withState.records.transactions.length);
  });

  it('classifies failures by kind and keeps the block key when the header is readable', () => {
    expect(decodeMessage(Buffer.from('garbage'), 'k1')).toMatchObject({ ok: false, kind: 'codec', key: 'k1' });
    expect(decodeMessage(null, 'k2')).toMatchObject({ ok: false, kind: 'codec', key: 'k2' });

    const notBoc = { ...big.raw, boc: Buffer.from('not a bag of cells at all') };
    expect(decodeMessage(encodeRawBlock(notBoc), 'k3')).toMatchObject({ ok: false, kind: 'boc', key: blockKey(big.raw) });

    // A valid BoC (an Account) that is not a Block.
    const accountBoc = fixtures.find((f) => f.raw.account_states.length > 0)!.raw.account_states[0].boc;
    const wrongCell = { ...big.raw, boc: accountBoc };
    expect(decodeMessage(encodeRawBlock(wrongCell), null)).toMatchObject({ ok: false, kind: 'tlb', key: blockKey(big.raw) });
  });
});
