import { describe, expect, it } from 'vitest';
import { blockKey, CodecError, decodeRawBlock, encodeRawBlock, type RawBlock } from './raw-block.js';

const sample: RawBlock = {
  workchain: 0,
  shard: '8000000000000000',
  seqno: 42,
  root_hash: 'r',
  file_hash: 'f',
  mc_seqno: 7,
  seen_at_ms: 1700000000000,
  boc: new Uint8Array([1, 2, 3, 4, 5]),
  account_states: [
    { account: '0:AB', boc: new Uint8Array([9, 9]), last_trans_lt: '10', last_trans_hash: 'h1' },
    { account: '0:CD', boc: new Uint8Array([]), last_trans_lt: '11', last_trans_hash: 'h2' },
  ],
};

describe('raw block codec', () => {
  it('round-trips a block with its account states, bytes as bytes', () => {
    const back = decodeRawBlock(encodeRawBlock(sample));
    expect({ ...back, boc: [...back.boc], account_states: back.account_states.map((a) => ({ ...a, boc: [...a.boc] })) }).toEqual({
      ...sample,
      boc: [...sample.boc],
      account_states: sample.account_states.map((a) => ({ ...a, boc: [...a.boc] })),
    });
    expect(blockKey(sample)).toBe('0:8000000000000000:42');
    const mc = { ...sample, workchain: -1, mc_blocks: 4, index_from: 3 };
    expect(decodeRawBlock(encodeRawBlock(mc))).toMatchObject({ mc_blocks: 4, index_from: 3 });
    expect(decodeRawBlock(encodeRawBlock(sample))).not.toHaveProperty('mc_blocks');
  });

  it('rejects truncated, padded and garbled messages with CodecError', () => {
    const enc = encodeRawBlock(sample);
    expect(() => decodeRawBlock(enc.subarray(0, enc.length - 1))).toThrow(CodecError);
    expect(() => decodeRawBlock(Buffer.concat([enc, Buffer.from([0])]))).toThrow(/unread bytes/);
    expect(() => decodeRawBlock(Buffer.from([0, 0, 0, 3, 1, 2, 3]))).toThrow(/not JSON/);
    expect(() => decodeRawBlock(Buffer.from([0, 0]))).toThrow(CodecError);
    expect(() => decodeRawBlock(encodeRawBlock({ ...sample, mc_blocks: 0 }))).toThrow(/mc_blocks is not a positive integer/);
  });
});
