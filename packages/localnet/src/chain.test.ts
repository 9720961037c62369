import { Cell as CoreCell, loadTransaction as coreLoadTransaction } from '@ton/core';
import { type BlockRecords, decodeBlock } from '@tonstream/block';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Chain, createChain } from './chain.js';
import { resumedClock, utimeOf } from './core.js';
import { restoreChain } from './restore.js';
import type { RoundResult } from './round.js';
import { LT_ALIGN, MASTERCHAIN, ROOT_SHARD } from './shards.js';
import { b64, blocksOf, readBlock } from './test-support.js';
import { createTraffic, type Traffic } from './traffic/traffic.js';
import type { StoredBlock } from './types.js';

const NOW = 1_750_000_000;
const ROUNDS = 20;
const JETTON_TRANSFER = '0x0f8a7ea5';

describe('the round clock', () => {
  const settings = { seed: 's', roundMs: 1000, shards: 2, genesisUtime: NOW, historyRounds: 8, stateHistoryRounds: 4, globalId: -239 };

  it('times round r at genesis + floor(r * roundMs / 1000) until a restore moves its start', () => {
    expect([1, 2, 10].map((r) => utimeOf(settings, r))).toEqual([NOW + 1, NOW + 2, NOW + 10]);
    expect([1, 2, 3].map((r) => utimeOf({ ...settings, roundMs: 1500 }, r))).toEqual([NOW + 1, NOW + 3, NOW + 4]);
  });

  it('resumes after a stop at the wall clock: the next round is at `now`, later ones a round apart', () => {
    const clock = resumedClock(settings, 20, NOW + 3600);
    expect(clock).toEqual({ seqno: 21, utime: NOW + 3600 });
    expect([21, 22, 30].map((r) => utimeOf({ ...settings, clock }, r))).toEqual([NOW + 3600, NOW + 3601, NOW + 3609]);
  });

  it('never goes back: a wall clock behind the chain keeps the old clock, and a second restore starts from the first', () => {
    expect(resumedClock(settings, 20, NOW)).toEqual({ seqno: 21, utime: NOW + 21 });
    expect(resumedClock(settings, 20, NOW + 21)).toEqual({ seqno: 21, utime: NOW + 21 });
    const first = { ...settings, clock: resumedClock(settings, 20, NOW + 3600) };
    expect(resumedClock(first, 25, NOW + 100)).toEqual({ seqno: 26, utime: NOW + 3605 });
    expect(resumedClock(first, 25, NOW + 7200)).toEqual({ seqno: 26, utime: NOW + 7200 });
  });
});

describe('createChain() with traffic over 20 rounds', () => {
  let chain: Chain;
  let traffic: Traffic;
  const rounds: RoundResult[] = [];
  const decoded = new Map<StoredBlock, BlockRecords>();

  beforeAll(async () => {
    chain = await createChain({ seed: 'unit', now: NOW, roundMs: 1000, shards: 2 });
    traffic = await createTraffic(chain, { seed: 'unit-traffic', ratePerRound: 12 });
    for (let i = 0; i < ROUNDS; i++) rounds.push(await traffic.step());
    for (const b of blocksOf(rounds)) decoded.set(b, decodeBlock(b.boc, { mcSeqno: b.mcSeqno }));
  });

  it('produces one masterchain and one block per shard each round, with transactions', () => {
    expect(rounds.map((r) => r.mc.id.seqno)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i + 2));
    for (const r of rounds) expect(r.shards.map((b) => b.id.shard)).toEqual([0x4000000000000000n, 0xc000000000000000n]);
    const txs = rounds.reduce((n, r) => n + r.transactions, 0);
    expect(txs).toBeGreaterThan(ROUNDS * 12);
    expect(chain.head()).toEqual(rounds[ROUNDS - 1].mc.id);
  });

  it('decodeBlock() reads every block back: root and file hashes, seqno, shard, transactions', () => {
    for (const [b, d] of decoded) {
      expect(d.block.root_hash).toBe(b64(b.id.rootHash));
      expect(d.block.file_hash).toBe(b64(b.id.fileHash));
      expect([d.block.workchain, BigInt(`0x${d.block.shard}`), d.block.seqno]).toEqual([b.id.workchain, b.id.shard, b.id.seqno]);
      expect(d.transactions.map((t) => t.hash).sort()).toEqual(b.transactions.map((t) => b64(t.hash)).sort());
      expect(d.block.global_id).toBe(-239);
    }
  });

  it('masterchain ShardHashes commit every shard block; prev refs link each chain with no gap', () => {
    const committed = new Set<string>();
    let prevMc: StoredBlock | undefined;
    for (const r of rounds) {
      const d = decoded.get(r.mc)!;
      expect(d.shards.map((s) => [BigInt(`0x${s.shard}`), s.seqno, s.root_hash, s.file_hash, s.reg_mc_seqno])).toEqual(
        r.shards.map((b) => [b.id.shard, b.id.seqno, b64(b.id.rootHash), b64(b.id.fileHash), r.mc.id.seqno]),
      );
      for (const s of d.shards) committed.add(`${BigInt(`0x${s.shard}`)}:${s.seqno}:${s.root_hash}`);
      if (prevMc) {
        expect(d.block.prev_refs).toEqual([{ workchain: -1, shard: '8000000000000000', seqno: prevMc.id.seqno, root_hash: b64(prevMc.id.rootHash), file_hash: b64(prevMc.id.fileHash), end_lt: prevMc.endLt.toString() }]);
        for (const b of r.shards) {
          // Shard blocks refer to the previous masterchain block; toncenter's masterchain_block_ref is the one committing them.
          expect(decoded.get(b)!.block.master_ref_seqno).toBe(prevMc.id.seqno);
          expect(decoded.get(b)!.block.masterchain_block_ref).toEqual({ workchain: -1, shard: '8000000000000000', seqno: r.mc.id.seqno });
        }
      }
      prevMc = r.mc;
    }
    // Walk each shard chain back from the last committed block along prev refs.
    for (const top of rounds[ROUNDS - 1].shards) {
      let cur: StoredBlock | undefined = top;
      let walked = 0;
      while (cur) {
        if (cur.mcSeqno >= rounds[0].mc.id.seqno) expect(committed.has(`${cur.id.shard}:${cur.id.seqno}:${b64(cur.id.rootHash)}`)).toBe(true);
        const ref = (decoded.get(cur) ?? decodeBlock(cur.boc)).block.prev_refs[0];
        const prev = chain.getBlock({ workchain: 0, shard: cur.id.shard, seqno: ref.seqno });
        if (prev) {
          expect(ref).toMatchObject({ seqno: cur.id.seqno - 1, root_hash: b64(prev.id.rootHash), file_hash: b64(prev.id.fileHash), end_lt: prev.endLt.toString() });
        }
        else expect(ref.seqno).toBe(0); // the genesis block links to the (made-up) zerostate
        walked++;
        cur = prev;
      }
      expect(walked).toBe(ROUNDS + 1); // the genesis round's block too
    }
    expect(committed.size).toBe(ROUNDS * 2);
  });

  it('lt: blocks start at a multiple of 1,000,000 above their parent and the masterchain; transactions and out messages inside', () => {
    const tips = new Map<string, StoredBlock>();
    for (const r of rounds) {
      for (const b of [...r.shards, r.mc]) {
        const d = decoded.get(b)!;
        const start = BigInt(d.block.start_lt);
        const end = BigInt(d.block.end_lt);
        expect(start % LT_ALIGN).toBe(0n);
        expect(end).toBeGreaterThan(start);
        const key = `${b.id.workchain}:${b.id.shard}`;
        const prev = tips.get(key);
        if (prev) expect(start).toBeGreaterThan(prev.endLt);
        tips.set(key, b);
        for (const t of d.transactions) {
          const lt = BigInt(t.lt);
          expect(lt >= start && lt < end).toBe(true);
          for (const m of t.out_msgs) expect(BigInt(m.created_lt!)).toBeGreaterThan(lt);
        }
      }
      // A masterchain block starts above the shard blocks it commits; shard blocks above their master_ref.
      for (const b of r.shards) expect(r.mc.startLt).toBeGreaterThan(b.endLt);
    }
    for (let i = 1; i < ROUNDS; i++) for (const b of rounds[i].shards) expect(b.startLt).toBeGreaterThan(rounds[i - 1].mc.endLt);
  });

  it('gen_utime advances by roundMs each round, the same in all blocks of a round; transactions have now = gen_utime', () => {
    for (const r of rounds) {
      const utime = NOW + r.mc.id.seqno;
      for (const b of [...r.shards, r.mc]) {
        expect(Number(decoded.get(b)!.block.gen_utime)).toBe(utime);
        for (const t of decoded.get(b)!.transactions) expect(t.now).toBe(utime);
      }
    }
  });

  it('masterchain blocks carry tick and tock transactions of the config and elector stubs', () => {
    for (const r of rounds) {
      const tt = decoded.get(r.mc)!.transactions.filter((t) => t.description.type === 'tick_tock');
      expect(tt.map((t) => t.description.is_tock).sort()).toEqual([false, false, true, true]);
      expect(new Set(tt.map((t) => t.account))).toEqual(new Set([`-1:${'5'.repeat(64)}`, `-1:${'3'.repeat(64)}`]));
    }
  });

  it('internal messages are delivered in a later round, in the destination shard: export_new there, import_fin here', () => {
    const created = new Map<string, { block: StoredBlock; kinds: Map<string, string> }>();
    for (const b of blocksOf(rounds)) {
      const blk = readBlock(b);
      const out = new Map(blk.extra.outMsgDescr.map((e) => [e.msgHash, e.kind as string]));
      for (const t of decoded.get(b)!.transactions) for (const m of t.out_msgs) if (m.destination) created.set(m.hash, { block: b, kinds: out });
      const inKinds = new Map(blk.extra.inMsgDescr.map((e) => [e.msgHash, e.kind as string]));
      for (const t of decoded.get(b)!.transactions) {
        const m = t.in_msg;
        if (!m || !m.source) continue;
        const origin = created.get(m.hash);
        if (!origin) continue; // created before the first observed round
        const hex = Buffer.from(m.hash, 'base64').toString('hex');
        expect(origin.block.mcSeqno).toBeLessThan(b.mcSeqno);
        expect(origin.kinds.get(hex)).toBe('msg_export_new');
        expect(inKinds.get(hex)).toBe('msg_import_fin');
        const [wc, addr] = m.destination!.split(':');
        if (Number(wc) === 0) expect(BigInt(`0x${addr.slice(0, 16)}`) >> 63n).toBe(b.id.shard >> 63n);
      }
    }
  });

  it('a Jetton transfer produces a trace spread over at least two blocks', () => {
    const byInMsg = new Map<string, { tx: BlockRecords['transactions'][number]; block: StoredBlock }>();
    for (const [b, d] of decoded) for (const tx of d.transactions) if (tx.in_msg) byInMsg.set(tx.in_msg.hash, { tx, block: b });
    const starts = [...byInMsg.values()].filter(({ tx }) => tx.in_msg!.opcode === JETTON_TRANSFER && tx.description.aborted === false);
    expect(starts.length).toBeGreaterThan(0);
    let best = 0;
    for (const start of starts) {
      const blocks = new Set<string>();
      const queue = [start];
      while (queue.length > 0) {
        const { tx, block } = queue.shift()!;
        blocks.add(`${block.id.workchain}:${block.id.shard}:${block.id.seqno}`);
        for (const m of tx.out_msgs) {
          const next = byInMsg.get(m.hash);
          if (next) queue.push(next);
        }
      }
      best = Math.max(best, blocks.size);
    }
    expect(best).toBeGreaterThanOrEqual(2);
  });

  it('traffic has deploys, text comments, bounces from missing accounts and failed compute phases, from all wallet kinds', () => {
    const txs = [...decoded.values()].flatMap((d) => d.transactions);
    expect(txs.some((t) => t.orig_status === 'uninit' && t.end_status === 'active')).toBe(true);
    expect(txs.some((t) => t.orig_status === 'nonexist' && t.end_status === 'nonexist' && t.description.bounce?.type === 'ok')).toBe(true);
    expect(txs.some((t) => t.description.compute_ph?.skipped === false && !t.description.compute_ph.success && t.description.bounce)).toBe(true);
    expect(txs.some((t) => t.in_msg?.bounced)).toBe(true);
    expect(txs.some((t) => t.out_msgs.some((m) => m.opcode === '0x00000000'))).toBe(true);
    const deployed = new Set(traffic.wallets().filter((w) => w.deployed).map((w) => w.kind));
    expect(deployed).toEqual(new Set(['v3r2', 'v4r2', 'v5r1', 'highload-v3']));
    // Every wallet kind, the multisig and the vesting wallet send messages from signed externals.
    const sends = (address: string) => txs.some((t) => t.account.toLowerCase() === address && t.in_msg?.source === null && t.out_msgs.length > 0);
    for (const kind of ['v3r2', 'v4r2', 'v5r1', 'highload-v3']) {
      expect(traffic.wallets().some((w) => w.kind === kind && sends(w.address.toRawString())), kind).toBe(true);
    }
    expect(sends(traffic.multisig.address.toRawString())).toBe(true);
    expect(sends(traffic.vesting.address.toRawString())).toBe(true);
    expect(traffic.stats().rejected).toBe(0);
  });

  it('the NFT collection answers get_collection_data and completes an item\'s content with its common content (TEP-62)', async () => {
    const collection = await chain.runGetMethod(traffic.nft.collection, 'get_collection_data');
    expect(collection.exitCode).toBe(0);
    const [nextIndex, content, owner] = collection.stack;
    expect(nextIndex.type === 'int' && nextIndex.value).toBeGreaterThan(0n);
    const collectionContent = content.type === 'cell' ? content.cell.beginParse() : null;
    expect([collectionContent?.loadUint(8), collectionContent?.loadStringTail()]).toEqual([1, 'https://localnet.invalid/unit-traffic-nft.json']);
    expect(owner.type === 'slice' && owner.cell.beginParse().loadAddress().toRawString()).toBe(traffic.wallets()[2].address.toRawString());
    const item = await chain.runGetMethod(traffic.nft.itemAddress(0), 'get_nft_data');
    expect(item.exitCode).toBe(0);
    const full = await chain.runGetMethod(traffic.nft.collection, 'get_nft_content', [item.stack[1], item.stack[4]]);
    expect(full.exitCode).toBe(0);
    const fullContent = full.stack[0].type === 'cell' ? full.stack[0].cell.beginParse() : null;
    expect([fullContent?.loadUint(8), fullContent?.loadStringTail()]).toEqual([1, 'https://localnet.invalid/unit-traffic-nft/0.json']);
  });

  it('getTransactions() walks prev links; getTransaction() and listBlockTransactions() find the same records', () => {
    const w = traffic.wallets().find((x) => x.kind === 'v4r2' && x.deployed)!;
    const mine = blocksOf(rounds).flatMap((b) => b.transactions.filter((t) => t.account === `0:${w.address.hash.toString('hex')}`));
    const last = mine[mine.length - 1];
    const list = chain.getTransactions(w.address, last.lt, last.hash, 100);
    expect(list.map((t) => t.hash)).toEqual([...mine].reverse().map((t) => t.hash));
    for (let i = 0; i + 1 < list.length; i++) {
      const tx = coreLoadTransaction(CoreCell.fromBoc(Buffer.from(list[i].boc))[0].beginParse());
      expect(tx.prevTransactionLt).toBe(list[i + 1].lt);
      expect(tx.hash().toString('hex')).toBe(list[i].hash);
    }
    expect(chain.getTransaction(w.address.toString(), last.lt)).toBe(last);
    expect(chain.getTransactionByHash(last.hash)).toBe(last);
    expect(chain.listBlockTransactions(last.block)).toContain(last);
    expect(() => chain.getTransactions(w.address, last.lt, '00'.repeat(32), 1)).toThrow(/not kept/);
  });

  it('lookupBlock() finds blocks by seqno, lt and utime; shardsAt() lists the committed shard blocks', () => {
    const r = rounds[5];
    const shard = r.shards[1];
    expect(chain.lookupBlock(0, shard.id.shard, { seqno: shard.id.seqno })).toBe(shard);
    expect(chain.lookupBlock(0, shard.id.shard, { lt: shard.startLt })).toBe(shard);
    expect(chain.lookupBlock(0, shard.id.shard, { lt: shard.endLt - 1n })).toBe(shard);
    expect(chain.lookupBlock(MASTERCHAIN, ROOT_SHARD, { utime: r.mc.genUtime })).toBe(r.mc);
    expect(chain.lookupBlock(MASTERCHAIN, ROOT_SHARD, { utime: NOW })).toBeUndefined();
    expect(chain.shardsAt(r.mc.id.seqno)).toEqual(r.shards);
    expect(chain.getBlock({ ...shard.id, rootHash: '00'.repeat(32) })).toBeUndefined();
  });

  it('zerostate() is what the first masterchain block links to', () => {
    const first = chain.lookupBlock(MASTERCHAIN, ROOT_SHARD, { seqno: 1 })!;
    expect(first.prevRefs[0]).toEqual(chain.zerostate());
    expect(first.keyBlock).toBe(true);
    expect(chain.config().keyBlock).toEqual(first.id);
  });

  it('outMsgQueueSizes() counts the messages waiting for the next round by the block that created them', () => {
    const head = chain.getBlock(chain.head())!;
    const blocks = [head, ...chain.shardsAt(head.id.seqno)!];
    const sizes = chain.outMsgQueueSizes();
    expect(sizes.map((s) => s.block)).toEqual(blocks.map((b) => b.id));
    // Read from each block: the internal messages its transactions sent (delivered in the next round).
    blocks.forEach((b, i) => {
      const sent = decodeBlock(b.boc, { mcSeqno: b.mcSeqno }).transactions.reduce((n, t) => n + t.out_msgs.filter((m) => m.destination).length, 0);
      expect(sizes[i].size).toBe(sent);
    });
    expect(sizes.reduce((n, s) => n + s.size, 0)).toBe(chain.pending().internal);
    expect(sizes.filter((s) => s.size > 0).length).toBeGreaterThan(1);
  });

  it('queries while a round executes see the state of the last finished round', async () => {
    const addrs = traffic.wallets().map((w) => w.address);
    const hex = (xs: { shardAccountBoc: Uint8Array }[]) => xs.map((x) => Buffer.from(x.shardAccountBoc).toString('hex'));
    const before = hex(await Promise.all(addrs.map((a) => chain.getAccountState(a))));
    const queue = chain.outMsgQueueSizes();
    const head = chain.head();
    let done = false;
    let checks = 0;
    const step = traffic.step().then((r) => ((done = true), r));
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      if (done || chain.head().seqno !== head.seqno) break;
      expect(hex(await Promise.all(addrs.map((a) => chain.getAccountState(a))))).toEqual(before);
      expect(chain.outMsgQueueSizes()).toEqual(queue);
      checks++;
    }
    const r = await step;
    expect(checks).toBeGreaterThan(0);
    expect(r.mc.id.seqno).toBe(head.seqno + 1);
    expect(hex(await Promise.all(addrs.map((a) => chain.getAccountState(a))))).not.toEqual(before);
  });

  it('after snapshot() and restoreChain() an hour later, the chain resumes at that time and a new traffic generator picks up without rejected externals', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'localnet-'));
    try {
      await chain.snapshot(join(dir, 'chain.json'));
      const last = chain.getBlock(chain.head())!;
      const restartedAt = last.genUtime + 3600;
      const restored = await restoreChain(join(dir, 'chain.json'), { now: restartedAt });
      expect(restored.nextUtime()).toBe(restartedAt);
      const again = await createTraffic(restored, { seed: 'unit-traffic', ratePerRound: 12 });
      let txs = 0;
      const after: RoundResult[] = [];
      for (let i = 0; i < 3; i++) after.push(await again.step());
      for (const r of after) txs += r.transactions;
      // The blocks say so themselves: gen_utime and every transaction's now, one round (1 s) apart from the restart on.
      after.forEach((r, i) => {
        for (const b of [...r.shards, r.mc]) {
          const d = decodeBlock(b.boc, { mcSeqno: b.mcSeqno });
          expect(Number(d.block.gen_utime)).toBe(restartedAt + i);
          for (const t of d.transactions) expect(t.now).toBe(restartedAt + i);
        }
      });
      // The downtime is a gap between two blocks: a time inside it finds the last block before the stop.
      expect(restored.lookupBlock(MASTERCHAIN, ROOT_SHARD, { utime: restartedAt - 1 })?.id).toEqual(last.id);
      expect(txs).toBeGreaterThan(3 * 12);
      expect(again.stats().rejected).toBe(0);
      expect(again.stats().actions.jetton_transfer + again.stats().actions.transfer).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
