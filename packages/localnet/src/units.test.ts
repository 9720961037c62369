import { verify } from 'node:crypto';
import { createRequire } from 'node:module';
import { Cell as CoreCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { methodId } from './get-method.js';
import { createHistory } from './history.js';
import { basechainShards, nextAlignedLt, shardOfAccount } from './shards.js';
import { createStateHistory } from './state-history.js';
import { HIGHLOAD_V3_CODE_HEX } from './traffic/highload-v3.js';
import { keyPairFromLabel, signBytes } from './traffic/keys.js';
import { createRandom } from './traffic/random.js';
import { VESTING_V1_CODE_HEX } from './traffic/vesting.js';
import type { StoredBlock } from './types.js';

describe('shards', () => {
  it('basechainShards() tiles the workchain by the top bits; shardOfAccount() routes by them', () => {
    expect(basechainShards(1)).toEqual([0x8000000000000000n]);
    expect(basechainShards(2)).toEqual([0x4000000000000000n, 0xc000000000000000n]);
    expect(basechainShards(4)).toEqual([0x2000000000000000n, 0x6000000000000000n, 0xa000000000000000n, 0xe000000000000000n]);
    expect(() => basechainShards(3)).toThrow(/power of two/);
    const two = basechainShards(2);
    expect(shardOfAccount(two, '7f'.padEnd(64, 'f'))).toBe(0x4000000000000000n);
    expect(shardOfAccount(two, '80'.padEnd(64, '0'))).toBe(0xc000000000000000n);
    expect(shardOfAccount(basechainShards(4), 'a1'.padEnd(64, '0'))).toBe(0xa000000000000000n);
  });

  it('nextAlignedLt() is the next multiple of 1,000,000 strictly above', () => {
    expect(nextAlignedLt(0n)).toBe(1_000_000n);
    expect(nextAlignedLt(999_999n)).toBe(1_000_000n);
    expect(nextAlignedLt(1_000_000n)).toBe(2_000_000n);
  });
});

describe('methodId()', () => {
  it('computes the get method ids TON uses', () => {
    expect(methodId('seqno')).toBe(85143);
    expect(methodId('get_wallet_data')).toBe(97026);
  });
});

describe('createStateHistory()', () => {
  it('answers the state after a round, before the first kept version, or current; forgets evicted rounds', () => {
    const h = createStateHistory();
    h.record(5, 'a', 's0', 's1');
    h.record(5, 'a', 's1', 's2');
    h.record(7, 'a', 's2', 's3');
    expect(h.at('a', 4)).toBe('s0');
    expect(h.at('a', 5)).toBe('s2');
    expect(h.at('a', 6)).toBe('s2');
    expect(h.at('a', 9)).toBe('s3');
    expect(h.at('b', 5)).toBe('current');
    h.evictThrough(5);
    expect(h.at('a', 6)).toBe('s2');
    expect(h.oldestMcSeqno()).toBe(7);
    h.evictThrough(7);
    expect(h.at('a', 8)).toBe('current');
  });
});

describe('createHistory()', () => {
  const block = (seqno: number, startLt: bigint, genUtime: number): StoredBlock => ({
    id: { workchain: 0, shard: 1n << 63n, seqno, rootHash: seqno.toString(16).padStart(64, '0'), fileHash: '00'.repeat(32) },
    startLt,
    endLt: startLt + 5n,
    genUtime,
    keyBlock: false,
    mcSeqno: seqno,
    prevRefs: [],
    stateHash: { old: '', new: '' },
    boc: new Uint8Array(),
    transactions: [],
  });
  const mc = (seqno: number): StoredBlock => ({ ...block(seqno, 0n, 0), id: { ...block(seqno, 0n, 0).id, workchain: -1 } });

  it('looks blocks up by seqno, lt and utime and evicts the oldest rounds', () => {
    const h = createHistory(3);
    for (let s = 1; s <= 4; s++) h.add({ mc: mc(s), shards: [block(s, BigInt(s) * 1_000_000n, 100 + s * 2)] });
    expect(h.oldestMcSeqno()).toBe(2);
    expect(h.lookup(0, 1n << 63n, { seqno: 1 })).toBeUndefined();
    expect(h.lookup(0, 1n << 63n, { seqno: 3 })?.id.seqno).toBe(3);
    expect(h.lookup(0, 1n << 63n, { lt: 3_000_004n })?.id.seqno).toBe(3);
    expect(h.lookup(0, 1n << 63n, { lt: 3_000_005n })?.id.seqno).toBe(4);
    expect(h.lookup(0, 1n << 63n, { lt: 9_000_000n })).toBeUndefined();
    expect(h.lookup(0, 1n << 63n, { utime: 107 })?.id.seqno).toBe(3);
    expect(h.lookup(0, 1n << 63n, { utime: 105 })?.id.seqno).toBe(2);
    expect(h.lookup(0, 1n << 63n, { utime: 103 })).toBeUndefined();
    expect(h.lookup(0, 1n << 63n, { lt: 5n })).toBeUndefined(); // block 1 held it, and was evicted
    expect(h.round(3)?.mc.id.seqno).toBe(3);
    expect(h.get({ workchain: 0, shard: 1n << 63n, seqno: 4, rootHash: '00'.repeat(32) })).toBeUndefined();
  });
});

describe('traffic building blocks', () => {
  it('the highload v3 code is tonweb 0.0.66 HighloadWalletContractV3.codeHex, hash EayteVWE...', () => {
    const require = createRequire(import.meta.url);
    const tonweb = require('tonweb/src/contract/highloadWallet/HighloadWalletContractV3.js') as { HighloadWalletContractV3: { codeHex: string } };
    expect(HIGHLOAD_V3_CODE_HEX).toBe(tonweb.HighloadWalletContractV3.codeHex);
    expect(CoreCell.fromBoc(Buffer.from(HIGHLOAD_V3_CODE_HEX, 'hex'))[0].hash().toString('base64')).toBe('EayteVWEQJDyg78ji8FEmHH3g+fMCXlAjT9IWUg+hSU=');
  });

  it('the vesting wallet code is tonweb 0.0.66 VestingWalletV1.codeHex, hash tItTGr7D...', () => {
    const require = createRequire(import.meta.url);
    const tonweb = require('tonweb/src/contract/lockup/VestingWalletV1.js') as { VestingWalletV1: { codeHex: string } };
    expect(VESTING_V1_CODE_HEX).toBe(tonweb.VestingWalletV1.codeHex);
    expect(CoreCell.fromBoc(Buffer.from(VESTING_V1_CODE_HEX, 'hex'))[0].hash().toString('base64')).toBe('tItTGr7DtxRjgpH3137W3J9qJynvyiBHcTc3TUrotZA=');
  });

  it('keyPairFromLabel() is deterministic and its signatures verify', () => {
    const a = keyPairFromLabel('x');
    expect(a.publicKey.equals(keyPairFromLabel('x').publicKey)).toBe(true);
    expect(a.publicKey.equals(keyPairFromLabel('y').publicKey)).toBe(false);
    const sig = signBytes(a, Buffer.from('data'));
    expect(verify(null, Buffer.from('data'), a.privateKey, sig)).toBe(true);
  });

  it('createRandom() repeats for a seed and differs across seeds', () => {
    const seq = (s: string) => Array.from({ length: 5 }, ((r) => () => r.int(1000))(createRandom(s)));
    expect(seq('a')).toEqual(seq('a'));
    expect(seq('a')).not.toEqual(seq('b'));
  });
});
