import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beginCell } from '@ton/core';
import { blockRecords, loadBlock, parseBoc } from '@tonstream/block';
import { describe, expect, it } from 'vitest';
import { EMPTY_ACCOUNT_HASH, isStateGone, isStateGoneAnswer, type LoadedBlock, loadAccountStates, loadVerifiedBlock, verifyAccountState } from './block-loader.js';
import { createLiteApi, fromTlBlockId, type LiteApi, verifyBlockBoc, VerifyError } from './lite-api.js';
import { createLitePool, GoneEverywhereError, LiteQueryError, type QueryEngine, type QueryEvent, toTlBlockId } from '@tonstream/lite-client';
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

/** account_none$0, hashed by @ton/core: an implementation independent of ours. */
const NONE_HASH = beginCell().storeBit(false).endCell().hash().toString('base64');

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
    // The fixture carries no account BoCs; a wrong state must be rejected, and so must "no state"
    // (account_none) for these accounts, which the block leaves with a state.
    const wrong = MC; // any BoC whose root is not the account
    expect(() => verifyAccountState(MC_ID, b.accounts[0], wrong)).toThrow(/state hash/);
    for (const a of b.accounts) expect(() => verifyAccountState(MC_ID, a, new Uint8Array())).toThrow(/no state \(account_none\)/);
    // An account the block leaves without one: the empty answer is the truth.
    const none = { ...b.accounts[0], state_hash_after: NONE_HASH };
    expect(() => verifyAccountState(MC_ID, none, new Uint8Array())).not.toThrow();
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
    const loaded = await loadVerifiedBlock(fakeLite(() => new Uint8Array()), MC_ID);
    // The fixture has no account BoCs: let the block leave its accounts without one, so "no state" verifies.
    const b = { ...loaded, accounts: loaded.accounts.map((a) => ({ ...a, state_hash_after: NONE_HASH })) };
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

describe('an empty account state', () => {
  it('is the account_none hash, which mainnet blocks record for every account a transaction creates', () => {
    expect(EMPTY_ACCOUNT_HASH).toBe(NONE_HASH);
    // The validators' HASH_UPDATE of each transaction on a nonexistent account starts from account_none.
    const boc = readFileSync(join(FIXTURES, 'wc0_6000000000000000_52111590.boc'));
    const cells = parseBoc(boc);
    const { transactions } = blockRecords(loadBlock(cells), boc, { rootHash: Buffer.from(cells.hash(cells.roots[0])).toString('base64'), fileHash: '' });
    const created = transactions.filter((t) => t.orig_status === 'nonexist');
    expect(created.length).toBeGreaterThan(0);
    for (const t of created) expect(t.account_state_hash_before, t.hash).toBe(EMPTY_ACCOUNT_HASH);
  });

  /** An engine answering getAccountState with `state`, counting its answers. */
  const stateEngine = (state: Buffer) => {
    const engine = { answers: 0, isReady: () => true, close: () => {}, query: (async () => {
      engine.answers++;
      return { kind: 'liteServer.accountState', state };
    }) as QueryEngine['query'] };
    return engine;
  };

  // Over the real LiteApi and pool: a liteserver that says "no account" for an account the block
  // leaves active is a failing server, and the state comes from the next one.
  const active = beginCell().storeUint(0xabcdef, 24).endCell();
  const block = (state_hash_after: string): LoadedBlock =>
    ({ id: MC_ID, accounts: [{ account: `0:${'11'.repeat(32)}`, last_trans_lt: '1', last_trans_hash: 'tx', state_hash_after }] }) as LoadedBlock;
  const poolOf = (engines: QueryEngine[], events: QueryEvent[] = []) =>
    createLiteApi(createLitePool({ servers: engines.map((engine, i) => ({ name: `s${i}`, engine })), sleep: async () => {}, observer: { observeQuery: (e) => events.push(e) }, isGone: isStateGoneAnswer }));

  it('from a liteserver for an account the block leaves active is rejected; the next server\'s state is published', async () => {
    const liar = stateEngine(Buffer.alloc(0));
    const honest = stateEngine(active.toBoc());
    const events: QueryEvent[] = [];
    const r = await loadAccountStates(poolOf([liar, honest], events), block(active.hash().toString('base64')));
    expect(liar.answers).toBe(1);
    expect(r.missing).toEqual([]);
    expect(r.states.map((s) => Buffer.from(s.boc).toString('hex'))).toEqual([active.toBoc().toString('hex')]);
    expect(events.map((e) => [e.server, e.result])).toEqual([['s0', 'error'], ['s1', 'ok']]);
    expect(events[0].error).toBeInstanceOf(VerifyError);
  });

  it('fails the block when every liteserver says so: retried, never published as empty or missing', async () => {
    const r = loadAccountStates(poolOf([stateEngine(Buffer.alloc(0)), stateEngine(Buffer.alloc(0))]), block(active.hash().toString('base64')));
    await expect(r).rejects.toBeInstanceOf(LiteQueryError);
    await expect(r).rejects.not.toBeInstanceOf(GoneEverywhereError);
  });

  it('is published for an account the block leaves without one', async () => {
    const r = await loadAccountStates(poolOf([stateEngine(Buffer.alloc(0))]), block(NONE_HASH));
    expect(r.states.map((s) => s.boc.length)).toEqual([0]);
  });
});
