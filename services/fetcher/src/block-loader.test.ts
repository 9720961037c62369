import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isStateGone, isStateGoneAnswer, loadAccountStates, loadVerifiedBlock, verifyAccountState } from './block-loader.js';
import { fromTlBlockId, type LiteApi, toTlBlockId, verifyBlockBoc, VerifyError } from './lite-api.js';
import { GoneEverywhereError, LiteQueryError } from './lite-pool.js';
import type { FullBlockId } from './shard-walk.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/mainnet/blocks');
const MC = readFileSync(join(FIXTURES, 'mc_-1_8000000000000000_24374597.boc'));
const MC_ID: FullBlockId = {
  workchain: -1,
  shard: '8000000000000000',
  seqno: 24374597,
  root_hash: Buffer.from('1908d071c508674d205fae80f3793faf9448202166f9189769e45d506d1e0b56', 'hex').toString('base64'),
  // The liteserver's file hash is sha256 of the bytes it serves.
  file_hash: createHash('sha256').update(MC).digest('base64'),
};

/** A LiteApi serving the fixture, with account states from `states`. */
function fakeLite(states: (account: string) => Uint8Array | Error): LiteApi {
  return {
    getBlock: async (id: FullBlockId) => verifyBlockBoc(id, MC),
    getAccountState: async (_b: FullBlockId, account: string, check?: (s: Uint8Array) => void) => {
      const s = states(account);
      if (s instanceof Error) throw s;
      check?.(s);
      return s;
    },
  } as unknown as LiteApi;
}

describe('block ids and hashes', () => {
  it('converts block ids to TL and back (masterchain shard as signed 64-bit)', () => {
    const tl = toTlBlockId(MC_ID);
    expect(tl.shard).toBe('-9223372036854775808');
    expect(Buffer.from(tl.rootHash).toString('hex')).toBe('1908d071c508674d205fae80f3793faf9448202166f9189769e45d506d1e0b56');
    expect(fromTlBlockId(tl)).toEqual(MC_ID);
    const shard: FullBlockId = { ...MC_ID, workchain: 0, shard: 'E000000000000000' };
    expect(toTlBlockId(shard).shard).toBe('-2305843009213693952');
    expect(fromTlBlockId(toTlBlockId(shard))).toEqual(shard);
  });

  it('verifyBlockBoc() accepts the block it was asked for and rejects other root or file hashes', () => {
    expect(verifyBlockBoc(MC_ID, MC).cells.roots).toHaveLength(1);
    expect(() => verifyBlockBoc({ ...MC_ID, root_hash: Buffer.alloc(32).toString('base64') }, MC)).toThrow(/root hash .* != requested/);
    expect(() => verifyBlockBoc({ ...MC_ID, file_hash: Buffer.alloc(32).toString('base64') }, MC)).toThrow(VerifyError);
  });
});

describe('loadVerifiedBlock() and loadAccountStates()', () => {
  it('reads shard tops, prev ref and touched accounts of a masterchain block', async () => {
    const b = await loadVerifiedBlock(fakeLite(() => new Uint8Array()), MC_ID);
    expect(b.tops.map((t) => `${t.workchain}:${t.shard}:${t.seqno}`)).toEqual(['0:8000000000000000:29836493']);
    expect(b.prevRefs.map((p) => p.seqno)).toEqual([24374596]);
    expect(b.accounts).toHaveLength(3);
    expect(b.txCount).toBe(5);
    expect(b.accounts.every((a) => a.state_hash_after.length === 44)).toBe(true);
  });

  it('rejects a block that is not the one requested', async () => {
    await expect(loadVerifiedBlock(fakeLite(() => new Uint8Array()), { ...MC_ID, seqno: 5 })).rejects.toThrow(/says it is/);
  });

  it('checks each account state against the state hash its last transaction left', async () => {
    const b = await loadVerifiedBlock(fakeLite(() => new Uint8Array()), MC_ID);
    // The fixture carries no account BoCs; a wrong state must be rejected, an empty one (account_none) passes.
    const wrong = MC; // any BoC whose root is not the account
    expect(() => verifyAccountState(MC_ID, b.accounts[0], wrong)).toThrow(/state hash/);
    expect(() => verifyAccountState(MC_ID, b.accounts[0], new Uint8Array())).not.toThrow();
  });

  it('recognises the "no such state here" answers of upstream liteservers and the localnet, and nothing else', () => {
    const gone = [
      "cannot load state for (0,8000000000000000,45913424):5A3B…:9F1C… : state already gc'd",
      'cannot load state for (0,8000000000000000,45913424):5A3B…:9F1C… : state not in db',
      'account states are kept for the last 32 rounds; round 82 is older',
    ];
    const notGone = [
      'block (0,8000000000000000,45913424) is not applied',
      'block (0,8000000000000000,45913424) is not in db (possibly out of sync: shard_client_seqno=1 ls_seqno=1)',
      'cannot load block (0,8000000000000000,45913424):5A3B…:9F1C… : block handle not in db',
      'cannot find block (0,8000000000000000) lt=123: lt not in db',
      'Timeout',
      'adnl query timeout',
    ];
    for (const m of gone) expect(isStateGoneAnswer(new Error(m), 'getAccountState'), m).toBe(true);
    for (const m of notGone) expect(isStateGoneAnswer(new Error(m), 'getAccountState'), m).toBe(false);
    expect(isStateGoneAnswer(new Error(gone[0]), 'getBlock')).toBe(false);
  });

  it('publishes accounts as missing only when every liteserver said the state is gone; fails on other errors', async () => {
    const b = await loadVerifiedBlock(fakeLite(() => new Uint8Array()), MC_ID);
    const attempts = [
      { server: 'x', error: 'account states are kept for the last 32 rounds; round 82 is older' },
      { server: 'y', error: 'cannot load state for (0,8000000000000000,1):A:B : state not in db' },
    ];
    const everywhere = new GoneEverywhereError('getAccountState', attempts);
    expect(isStateGone(everywhere)).toBe(true);
    // The same answers without the pool's verdict (e.g. a server also timed out) are no proof.
    expect(isStateGone(new LiteQueryError('getAccountState', [...attempts, { server: 'z', error: 'Timeout' }]))).toBe(false);
    const first = b.accounts[0].account;
    const r = await loadAccountStates(fakeLite((a) => (a === first ? everywhere : new Uint8Array())), b);
    expect(r.missing).toEqual([first]);
    expect(r.states.map((s) => s.account)).toEqual(b.accounts.slice(1).map((a) => a.account));
    const other = new LiteQueryError('getAccountState', attempts);
    await expect(loadAccountStates(fakeLite(() => other), b)).rejects.toBe(other);
  });
});
