/**
 * liteServer.getState over the local chain: the ShardStateUnsplit of a block, read with @ton/core,
 * holds every account of the shard with what getAccountState answers for the same block (and what
 * the sandbox holds), the prefunded wallets (no transaction yet) included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, Cell, loadShardAccounts, loadShardStateUnsplit } from '@ton/core';
import { type Chain, createChain, PREFUNDED_BALANCE, PREFUNDED_WALLETS } from '@tonstream/localnet';
import { Functions, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connected, serve, type Served } from './test-support/harness.js';

const ROUNDS = 4;

let dir: string;
let chain: Chain;
let served: Served;
let conn: Connected;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'localnet-get-state-test-'));
  chain = await createChain({ seed: 'get-state-test', roundMs: 1000, shards: 2 });
  for (let i = 0; i < ROUNDS; i++) await chain.produceRound();
  served = await serve(chain, dir);
  conn = await connect(served.configPath);
}, 60_000);

afterAll(async () => {
  conn?.engine.close();
  await served?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const getState = (id: tonNode_blockIdExt) => conn.engine.query(Functions.liteServer_getState, { kind: 'liteServer.getState', id });

describe('liteServer.getState', () => {
  it('answers each shard state of a masterchain block with its accounts as getAccountState gives them', async () => {
    const mc = (await conn.client.getMasterchainInfo()).last;
    const tops = Object.entries((await conn.client.getAllShardsInfo(mc)).shards['0']);
    const blocks: tonNode_blockIdExt[] = [mc];
    for (const [shard, seqno] of tops) blocks.push((await conn.client.lookupBlockByID({ workchain: 0, shard, seqno })).id);
    expect(blocks.length).toBe(3);
    const seen = new Map<string, bigint>();
    for (const id of blocks) {
      const res = await getState(id);
      expect(res.id.seqno).toBe(id.seqno);
      const root = Cell.fromBoc(res.data)[0];
      expect(Buffer.from(res.rootHash).equals(root.hash())).toBe(true);
      // @ton/core's McStateExtra reader does not follow the TL-B (it skips no ^[...] cell), so the
      // masterchain state's header is checked by hand and the accounts read from their reference.
      if (id.workchain === 0) {
        const state = loadShardStateUnsplit(root.beginParse());
        expect([state.shardId.workchainId, state.seqno, Boolean(state.extras)]).toEqual([0, id.seqno, false]);
      } else {
        const s = root.beginParse();
        expect([s.loadUint(32), s.skip(32 + 2 + 6).loadInt(32), s.skip(64).loadUint(32), root.refs.length]).toEqual([0x9023afe2, -1, id.seqno, 4]);
      }
      for (const [key, ref] of loadShardAccounts(root.refs[1].beginParse())) {
        const address = new Address(id.workchain, Buffer.from(key.toString(16).padStart(64, '0'), 'hex'));
        const answer = await conn.client.getAccountState(address, mc);
        expect(ref.shardAccount.account?.storage.balance.coins).toBe(answer.balance.coins);
        expect(ref.depthBalanceInfo.balance.coins).toBe(answer.balance.coins);
        expect(ref.shardAccount.lastTransactionLt).toBe(answer.lastTx?.lt ?? 0n);
        seen.set(address.toRawString(), answer.balance.coins);
      }
    }
    for (const w of PREFUNDED_WALLETS) {
      const sandbox = await chain.sandbox.getContract(Address.parse(w.address));
      expect(seen.get(w.address), w.address).toBe(PREFUNDED_BALANCE);
      expect(sandbox.balance).toBe(PREFUNDED_BALANCE);
      expect(sandbox.accountState?.type).toBe('active');
    }
    // The masterchain's own accounts (config, elector stubs) are in its state.
    expect([...seen.keys()].filter((a) => a.startsWith('-1:')).length).toBeGreaterThanOrEqual(2);
  });

  it('answers an unknown block with the usual block-not-found error', async () => {
    const mc = (await conn.client.getMasterchainInfo()).last;
    await expect(getState({ ...mc, seqno: mc.seqno + 1000 })).rejects.toThrow(/block not found/);
  });
});
