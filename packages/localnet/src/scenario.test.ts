import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, internal, toNano } from '@ton/core';
import { JettonWallet } from '@ton-community/assets-sdk';
import { decodeBlock } from '@tonstream/block';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Chain, createChain } from './chain.js';
import { restoreChain } from './restore.js';
import type { RoundResult } from './round.js';
import { b64 } from './test-support.js';
import { createJetton, jettonMintBody, jettonTransferBody } from './traffic/assets.js';
import { createTraffic } from './traffic/traffic.js';
import { createWallet } from './traffic/wallets.js';
import type { StoredBlock } from './types.js';

const NOW = 1_760_000_000;
const raw = (a: Address) => `0:${a.hash.toString('hex')}`;
const int = (x: { stack: { type: string; value?: unknown }[] }, i = 0) => {
  const item = x.stack[i];
  if (item.type !== 'int') throw new Error(`stack[${i}] is ${item.type}`);
  return item.value as bigint;
};

describe('a wallet and a Jetton driven by hand through submitExternal()', () => {
  let chain: Chain;
  const alice = createWallet('v4r2', 'scenario:alice');
  const bob = createWallet('v5r1', 'scenario:bob');
  const jetton = createJetton(alice.address, 'scenario');
  let dir: string;
  let seq = 0;
  const headUtime = () => chain.getBlock(chain.head())!.genUtime;
  const send = async (messages: ReturnType<typeof internal>[]) => {
    const boc = await alice.external({ seq, now: headUtime(), messages, deploy: seq === 0 });
    seq++;
    return chain.submitExternal(boc);
  };
  const txsOf = (r: RoundResult, address: Address) => [...r.shards, r.mc].flatMap((b) => decodeBlock(b.boc).transactions.filter((t) => t.account.toLowerCase() === raw(address)));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'localnet-'));
    chain = await createChain({ seed: 'scenario', now: NOW });
    await chain.fund(alice.address, toNano(100));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('submitExternal(): a wallet external executes in the next round, deploys the wallet, its transfer arrives a round later', async () => {
    const before = chain.head();
    const submitted = await send([internal({ to: bob.address, value: toNano(2), bounce: false, body: 'hello bob' })]);
    expect(chain.pending()).toEqual({ internal: 0, external: 1 });
    expect(submitted.shard).toBe(alice.address.hash[0] & 0x80 ? 0xc000000000000000n : 0x4000000000000000n);
    const r = await chain.produceRound();
    expect(r.mc.id.seqno).toBe(before.seqno + 1);
    const block = r.shards.find((b) => b.id.shard === submitted.shard)!;
    const tx = decodeBlock(block.boc).transactions.find((t) => t.in_msg?.hash === b64(submitted.hash))!;
    expect(tx).toMatchObject({ orig_status: 'uninit', end_status: 'active' });
    expect(tx.out_msgs[0].destination?.toLowerCase()).toBe(raw(bob.address));
    expect(chain.pending()).toEqual({ internal: 1, external: 0 });

    const r2 = await chain.produceRound();
    const atBob = r2.shards.flatMap((b) => decodeBlock(b.boc).transactions).find((t) => t.in_msg?.hash === tx.out_msgs[0].hash)!;
    expect(atBob).toMatchObject({ orig_status: 'nonexist', end_status: 'uninit' });
  });

  it('runGetMethod() reads the seqno; the sandbox sees the same state', async () => {
    expect(int(await chain.runGetMethod(alice.address, 'seqno'))).toBe(1n);
    expect((await chain.sandbox.runGetMethod(alice.address, 'seqno')).stackReader.readNumber()).toBe(1);
    await expect(chain.runGetMethod(bob.address, 'seqno')).rejects.toThrow(/not active/);
  });

  it('getAccountState() answers at the head and at older blocks', async () => {
    const now = await chain.getAccountState(alice.address);
    expect(now.status).toBe('active');
    expect(now.balance).toBeLessThan(toNano(98));
    const first = chain.lookupBlock(-1, 1n << 63n, { seqno: 1 })!;
    // fund() credits as of the next round: at block 1 nobody had touched the address yet.
    const then = await chain.getAccountState(alice.address.toString(), first.id);
    expect(then).toMatchObject({ status: 'nonexist', balance: 0n, lastTxLt: 0n, block: first.id });
    const deployed = await chain.getAccountState(alice.address, chain.lookupBlock(-1, 1n << 63n, { seqno: 2 })!.id);
    expect(deployed).toMatchObject({ status: 'active', lastTxLt: now.lastTxLt });
    const nobody = await chain.getAccountState(`0:${'ab'.repeat(32)}`);
    expect(nobody).toMatchObject({ status: 'nonexist', balance: 0n });
    const tx = chain.getTransaction(alice.address, now.lastTxLt)!;
    expect(tx.hash).toBe(now.lastTxHash);
    expect(now.shardBlock.seqno).toBe(chain.head().seqno);
  });

  it('a Jetton mint, then a transfer with forward payload: get_wallet_data gives the balances; the trace spans blocks', async () => {
    await send([internal({ to: jetton.minter, value: toNano(1), bounce: false, init: jetton.minterInit, body: jettonMintBody({ queryId: 1n, minter: jetton.minter, to: alice.address, amount: 1000n, response: alice.address }) })]);
    for (let i = 0; i < 4; i++) await chain.produceRound();
    const aliceJw = jetton.walletOf(alice.address);
    expect(int(await chain.runGetMethod(aliceJw, 'get_wallet_data'))).toBe(1000n);

    const t = await send([internal({ to: aliceJw, value: toNano('0.2'), bounce: true, body: jettonTransferBody({ queryId: 2n, amount: 300n, to: bob.address, response: alice.address, comment: 'for bob' }) })]);
    const rounds: RoundResult[] = [];
    for (let i = 0; i < 4; i++) rounds.push(await chain.produceRound());
    const data = await chain.runGetMethod(jetton.walletOf(bob.address), 'get_wallet_data');
    expect(int(data)).toBe(300n);
    expect(data.stack[1]).toMatchObject({ type: 'slice' });
    expect(int(await chain.runGetMethod(aliceJw, 'get_wallet_data'))).toBe(700n);
    const bobJwState = await chain.getAccountState(jetton.walletOf(bob.address));
    expect(bobJwState.status).toBe('active');
    expect(data.stack[3]).toMatchObject({ type: 'cell' });
    if (data.stack[3].type === 'cell') expect(data.stack[3].cell.hash().equals(JettonWallet.code.hash())).toBe(true);

    // Follow the trace: ext -> alice wallet -> alice jetton wallet -> bob jetton wallet -> bob (notification) + alice (excess).
    const byIn = new Map<string, { block: StoredBlock; outs: string[] }>();
    for (const r of rounds) for (const b of [...r.shards, r.mc]) for (const tx of decodeBlock(b.boc).transactions) if (tx.in_msg) byIn.set(tx.in_msg.hash, { block: b, outs: tx.out_msgs.map((m) => m.hash) });
    const seqnos: number[] = [];
    const queue = [b64(t.hash)];
    while (queue.length > 0) {
      const hit = byIn.get(queue.shift()!);
      if (!hit) continue;
      seqnos.push(hit.block.id.seqno);
      queue.push(...hit.outs);
    }
    expect(seqnos.length).toBeGreaterThanOrEqual(5);
    expect(new Set(seqnos).size).toBeGreaterThanOrEqual(3);
    expect(txsOf(rounds[0], alice.address).length).toBe(1);
  });

  it('snapshot() then restoreChain() continues the chain: next seqno, prev hash, in-flight messages delivered, same blocks as the original', async () => {
    await send([internal({ to: bob.address, value: toNano(1), bounce: false, body: 'in flight across a restart' })]);
    const r = await chain.produceRound();
    expect(r.inFlight).toBe(1);
    const path = join(dir, 'chain.json');
    await chain.snapshot(path);
    // Restarted no later than the chain's own clock (NOW is in the past): its clock goes on unchanged.
    const restored = await restoreChain(path, { now: 0 });
    expect(restored.head()).toEqual(chain.head());
    expect(restored.getBlock(r.shards[0].id)?.transactions.map((t) => t.hash)).toEqual(r.shards[0].transactions.map((t) => t.hash));
    expect(restored.pending()).toEqual({ internal: 1, external: 0 });

    const next = await restored.produceRound();
    expect(next.mc.id.seqno).toBe(r.mc.id.seqno + 1);
    expect(next.mc.prevRefs[0]).toEqual(r.mc.id);
    expect(decodeBlock(next.mc.boc).block.prev_refs[0].root_hash).toBe(b64(r.mc.id.rootHash));
    for (const b of next.shards) expect(b.prevRefs[0]).toEqual(r.shards.find((s) => s.id.shard === b.id.shard)!.id);
    expect(next.transactions).toBe(4 + 1); // tick-tock and the delivered transfer
    expect(int(await restored.runGetMethod(alice.address, 'seqno'))).toBe(BigInt(seq));

    const same = await chain.produceRound();
    expect([same.mc.id, ...same.shards.map((b) => b.id)]).toEqual([next.mc.id, ...next.shards.map((b) => b.id)]);
  });
});

describe('determinism', () => {
  it('the same seeds give the same blocks, bit for bit', async () => {
    const run = async () => {
      const chain = await createChain({ seed: 'det', now: NOW });
      const traffic = await createTraffic(chain, { seed: 'det', ratePerRound: 8 });
      const ids = [];
      for (let i = 0; i < 6; i++) ids.push((await traffic.step()).mc.id);
      return ids;
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    const other = await createChain({ seed: 'det2', now: NOW });
    expect(other.head().rootHash).not.toBe(a[0].rootHash);
  });
});
