/**
 * createLiteHandlers() end to end: a chain with traffic, served by the real liteserver on an
 * ephemeral 127.0.0.1 port, queried by the unmodified ton-lite-client connected through the
 * generated global config file. Rounds are produced by the test, so every step is deterministic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, beginCell, Cell, Dictionary, external, internal, loadShardStateUnsplit, loadTransaction, parseTuple, serializeTuple, storeMessage, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { type BlockRecords, decodeBlock } from '@tonstream/block';
import type { BlockRef as RecordRef } from '@tonstream/records';
import { toTlBlockId } from '@tonstream/lite-client';
import { getOutMsgQueueSizes, listBlockTransactionsExt } from '@tonstream/liteserver-emulator';
import { type Chain, createChain, createTraffic, restoreChain, type Traffic } from '@tonstream/localnet';
import { Functions, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connected, serve, type Served } from './test-support/harness.js';

const SEED = 'lite-handlers-test';
const MC_SHARD = '-9223372036854775808';
const FOLLOW_BLOCKS = 20;
const OP_JETTON_TRANSFER = '0x0f8a7ea5';
const OP_JETTON_INTERNAL_TRANSFER = '0x178d4519';

let dir: string;
let chain: Chain;
let traffic: Traffic;
let served: Served;
let conn: Connected;
/** Every block the follow test fetched and decoded, by root hash (base64). */
const decoded = new Map<string, BlockRecords>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'localnet-service-test-'));
  chain = await createChain({ seed: SEED, roundMs: 1000, shards: 2 });
  traffic = await createTraffic(chain, { seed: SEED, ratePerRound: 12 });
  served = await serve(chain, dir);
  conn = await connect(served.configPath);
}, 60_000);

afterAll(async () => {
  conn?.engine.close();
  traffic?.stop();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const hexOf = (b64text: string) => Buffer.from(b64text, 'base64').toString('hex');

/** getBlock, then decode without trusting the root hash: the computed one must be the id's. */
async function fetchBlock(id: tonNode_blockIdExt): Promise<BlockRecords> {
  const res = await conn.engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id });
  const records = decodeBlock(res.data);
  expect(records.block.root_hash).toBe(b64(id.rootHash));
  expect(records.block.file_hash).toBe(b64(id.fileHash));
  decoded.set(records.block.root_hash, records);
  return records;
}

/** Transaction hashes (hex) of a block through listBlockTransactions, paged with `after`. */
async function listedHashes(id: tonNode_blockIdExt, pageSize: number): Promise<string[]> {
  const out: string[] = [];
  let after: { kind: 'liteServer.transactionId3'; account: Buffer; lt: string } | null = null;
  for (;;) {
    const page = await conn.client.listBlockTransactions(id, { mode: 7 | (after ? 128 : 0), count: pageSize, after });
    for (const t of page.ids) out.push(t.hash!.toString('hex'));
    if (!page.incomplete) return out;
    const last = page.ids[page.ids.length - 1];
    after = { kind: 'liteServer.transactionId3', account: last.account!, lt: last.lt! };
  }
}

describe('liteserver over the local chain, with ton-lite-client', () => {
  it('follows 20 masterchain blocks: shard blocks linked without a gap, blocks decode, tx hashes match listBlockTransactions', async () => {
    for (let i = 0; i < FOLLOW_BLOCKS + 1; i++) await traffic.step();
    const head = (await conn.client.getMasterchainInfo()).last;
    const tops = new Map<string, RecordRef>();
    let shardBlocks = 0;
    let txs = 0;
    const check = async (id: tonNode_blockIdExt) => {
      const records = await fetchBlock(id);
      const listed = await listedHashes(id, 7);
      expect(listed.sort()).toEqual(records.transactions.map((t) => hexOf(t.hash)).sort());
      txs += listed.length;
      return records;
    };
    for (let seqno = head.seqno - FOLLOW_BLOCKS + 1; seqno <= head.seqno; seqno++) {
      const { id } = await conn.client.lookupBlockByID({ workchain: -1, shard: MC_SHARD, seqno });
      const mc = await check(id);
      const info = await conn.client.getAllShardsInfo(id);
      const committed = Object.entries(info.shards['0']).map(([shard, n]) => [BigInt.asUintN(64, BigInt(shard)).toString(16).toUpperCase(), n]);
      expect(mc.shards.map((s) => [s.shard, s.seqno])).toEqual(committed.sort());
      expect(mc.shards).toHaveLength(2);
      for (const top of mc.shards) {
        // Walk back from the committed top along prev refs to the previous masterchain block's top.
        const known = tops.get(top.shard);
        let ref: RecordRef = top;
        for (let steps = 0; ; steps++) {
          expect(steps).toBeLessThan(4);
          const blk = await check(toTlBlockId(ref));
          shardBlocks++;
          const prev = blk.block.prev_refs[0];
          if (!known || prev.seqno <= known.seqno) {
            if (known) expect([prev.seqno, prev.root_hash]).toEqual([known.seqno, known.root_hash]);
            break;
          }
          ref = prev;
        }
        tops.set(top.shard, top);
      }
      if (seqno > head.seqno - FOLLOW_BLOCKS + 1) expect(mc.block.prev_refs[0].seqno).toBe(seqno - 1);
    }
    expect(shardBlocks).toBe(2 * FOLLOW_BLOCKS);
    expect(txs).toBeGreaterThan(100);
  });

  it('lookupBlock by lt and by utime, getBlockHeader with a header proof whose hash is the block root hash', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const header = await conn.client.getBlockHeader(head);
    const proof = Cell.fromBoc(header.headerProof)[0];
    expect(proof.isExotic).toBe(true);
    expect(Buffer.from(proof.refs[0].hash(0))).toEqual(head.rootHash);
    const records = [...decoded.values()].find((r) => r.block.workchain === 0 && r.transactions.length > 0)!;
    const tx = records.transactions[0];
    const shard = BigInt.asIntN(64, BigInt(`0x${records.block.shard}`)).toString();
    const byLt = await conn.client.lookupBlockByLt({ workchain: 0, shard, lt: BigInt(tx.lt) });
    expect(byLt.id.seqno).toBe(records.block.seqno);
    const byUtime = await conn.client.lookupBlockByUtime({ workchain: -1, shard: MC_SHARD, utime: Number(records.block.gen_utime) });
    expect(byUtime.id.seqno).toBeGreaterThanOrEqual(records.block.seqno);
    // A shard id that is a prefix of a real shard resolves to that shard, as upstream looks blocks up by account prefix.
    const byRoot = await conn.client.lookupBlockByID({ workchain: 0, shard: MC_SHARD, seqno: records.block.seqno });
    expect(BigInt.asUintN(64, BigInt(byRoot.id.shard)).toString(16)).toBe('c000000000000000');
  });

  const keys = keyPairFromSeed(Buffer.alloc(32, 1));
  const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  const dest = Address.parse(`0:${'ab'.repeat(32)}`);

  it('lands a wallet transfer sent with client.sendMessage in a block within two rounds', async () => {
    await chain.fund(wallet.address, toNano(100));
    await traffic.step();
    const body = wallet.createTransfer({ seqno: 0, secretKey: keys.secretKey, sendMode: 3, messages: [internal({ to: dest, value: toNano(1), bounce: false })] });
    const ext = beginCell().store(storeMessage(external({ to: wallet.address, init: wallet.init, body }))).endCell();
    const sentAt = chain.head().seqno;
    expect(await conn.client.sendMessage(ext.toBoc())).toEqual({ status: 1 });
    let state;
    for (let round = 0; round < 2 && !state?.lastTx; round++) {
      await traffic.step();
      state = await conn.client.getAccountState(wallet.address, (await conn.client.getMasterchainInfo()).last);
    }
    expect(state?.lastTx).toBeTruthy();
    const hash = Buffer.from(state!.lastTx!.hash.toString(16).padStart(64, '0'), 'hex');
    const list = await conn.client.getAccountTransactions(wallet.address, state!.lastTx!.lt.toString(), hash, 5);
    expect(list.ids).toHaveLength(1);
    const tx = loadTransaction(Cell.fromBoc(list.transactions)[0].beginParse());
    expect(tx.inMessage?.info.type).toBe('external-in');
    expect(tx.inMessage?.body.hash()).toEqual(body.hash());
    const block = await fetchBlock(list.ids[0]);
    expect(block.block.master_ref_seqno + 1).toBeLessThanOrEqual(sentAt + 2);
    // The transfer's internal message is delivered to `dest` the round after.
    await traffic.step();
    await traffic.step();
    const destState = await conn.client.getAccountState(dest, (await conn.client.getMasterchainInfo()).last);
    expect(destState.balance.coins).toBe(toNano(1));
  });

  it('getAccountState returns the balance and last transaction the chain holds', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    for (const address of [wallet.address, ...traffic.wallets().slice(0, 3).map((w) => w.address)]) {
      const got = await conn.client.getAccountState(address, head);
      const truth = await chain.getAccountState(address);
      expect(got.balance.coins).toBe(truth.balance);
      expect(got.lastTx).toEqual({ lt: truth.lastTxLt, hash: BigInt(`0x${truth.lastTxHash}`) });
      expect(got.state?.storage.state.type).toBe('active');
      expect(b64(got.shardBlock.rootHash)).toBe(b64(Buffer.from(truth.shardBlock.rootHash, 'hex')));
    }
    const spent = toNano(100) - (await conn.client.getAccountState(wallet.address, head)).balance.coins;
    expect(spent > toNano(1) && spent < toNano('1.1')).toBe(true);
    const nobody = await conn.client.getAccountState(Address.parse(`0:${'cd'.repeat(32)}`), head);
    expect([nobody.state, nobody.lastTx, nobody.balance.coins, nobody.raw.length]).toEqual([null, null, 0n, 0]);
  });

  it('runMethod answers seqno on a wallet (also through client.open) and get_wallet_data on a Jetton wallet', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const res = await conn.client.runMethod(wallet.address, 'seqno', serializeTuple([]).toBoc(), head);
    expect(res.exitCode).toBe(0);
    expect(parseTuple(Cell.fromBase64(res.result!))).toEqual([{ type: 'int', value: 1n }]);
    expect(await conn.client.open(wallet).getSeqno()).toBe(1);

    let holders = 0;
    for (const w of traffic.wallets()) {
      const jw = traffic.jetton.walletOf(w.address);
      const r = await conn.client.runMethod(jw, 'get_wallet_data', serializeTuple([]).toBoc(), head);
      if (r.exitCode === -256) continue; // no Jetton wallet deployed for this owner yet
      expect(r.exitCode).toBe(0);
      const [balance, owner, master] = parseTuple(Cell.fromBase64(r.result!));
      const truth = await chain.runGetMethod(jw, 'get_wallet_data');
      expect(balance).toEqual(truth.stack[0]);
      expect(owner.type === 'slice' && owner.cell.beginParse().loadAddress().equals(w.address)).toBe(true);
      expect(master.type === 'slice' && master.cell.beginParse().loadAddress().equals(traffic.jetton.minter)).toBe(true);
      holders++;
    }
    expect(holders).toBeGreaterThan(2);
  });

  it('shows a Jetton transfer as a trace whose transactions lie in several blocks', () => {
    const txs = [...decoded.values()].flatMap((r) => r.transactions);
    const byInMsg = new Map(txs.filter((t) => t.in_msg).map((t) => [t.in_msg!.hash, t]));
    const traces = txs
      .filter((t) => t.in_msg?.opcode === OP_JETTON_TRANSFER)
      .map((t) => {
        const next = t.out_msgs.find((m) => m.opcode === OP_JETTON_INTERNAL_TRANSFER);
        const received = next && byInMsg.get(next.hash);
        const sender = txs.find((s) => s.out_msgs.some((m) => m.hash === t.in_msg!.hash));
        return received && sender ? [sender, t, received] : undefined;
      })
      .filter((t) => t !== undefined);
    expect(traces.length).toBeGreaterThan(0);
    for (const trace of traces) {
      const blocks = new Set(trace.map((t) => `${t.block_ref.shard}:${t.block_ref.seqno}`));
      expect(blocks.size).toBeGreaterThanOrEqual(2);
      expect(trace[2].account).not.toBe(trace[1].account);
    }
  });

  it('getConfig reads the config from the config proof; getConfigParams proves only the asked params', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const cfg = await conn.client.getConfig(head);
    const truth = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), Cell.fromBoc(Buffer.from(chain.config().boc))[0]);
    expect(cfg.configAddress).toBe(BigInt(`0x${chain.config().configAddr}`));
    expect(cfg.config.keys().sort((a, b) => a - b)).toEqual(truth.keys().sort((a, b) => a - b));
    expect(cfg.config.get(34)?.hash()).toEqual(truth.get(34)?.hash());

    const some = await conn.engine.query(Functions.liteServer_getConfigParams, { kind: 'liteServer.getConfigParams', mode: 0, id: head, paramList: [1, 20, 21] });
    const state = loadShardStateUnsplit(Cell.fromBoc(some.configProof)[0].refs[0].beginParse());
    expect(state.extras?.config.keys().sort((a, b) => a - b)).toEqual([1, 20, 21]);
    expect(state.extras?.config.get(20)?.hash()).toEqual(truth.get(20)?.hash());
  });

  it('answers other methods: listBlockTransactionsExt, getOneTransaction, getShardInfo, getShardBlockProof, getLibraries, getTime', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const block = [...decoded.values()].find((r) => r.block.workchain === 0 && r.transactions.length >= 3)!;
    const id = toTlBlockId({ ...block.block, end_lt: block.block.end_lt });
    const ext = await conn.engine.query(listBlockTransactionsExt, { kind: 'liteServer.listBlockTransactionsExt', id, mode: 7 | 32, count: 2, after: null, reverseOrder: null, wantProof: true });
    expect(ext.incomplete).toBe(true);
    const cells = Cell.fromBoc(ext.transactions);
    expect(cells.map((c) => c.hash().toString('base64'))).toEqual(block.transactions.slice(0, 2).map((t) => t.hash));
    expect(Buffer.from(Cell.fromBoc(ext.proof)[0].refs[0].hash(0))).toEqual(id.rootHash);

    const tx = block.transactions[1];
    const account = Address.parse(tx.account);
    const one = await conn.client.getAccountTransaction(account, tx.lt, id);
    expect(Cell.fromBoc(one.transaction)[0].hash().toString('base64')).toBe(tx.hash);
    const none = await conn.client.getAccountTransaction(account, (BigInt(tx.lt) + 1n).toString(), id);
    expect(none.transaction.length).toBe(0);

    const info = await conn.engine.query(Functions.liteServer_getShardInfo, { kind: 'liteServer.getShardInfo', id: head, workchain: 0, shard: id.shard, exact: true });
    expect(info.shardblk.shard).toBe(id.shard);
    const descr = Cell.fromBoc(info.shardDescr)[0].beginParse();
    expect([0xa, 0xb]).toContain(descr.loadUint(4)); // shard_descr#a or shard_descr_new#b
    expect(descr.loadUint(32)).toBe(info.shardblk.seqno);

    const link = await conn.engine.query(Functions.liteServer_getShardBlockProof, { kind: 'liteServer.getShardBlockProof', id });
    expect(link.links.map((l) => l.id.seqno)).toEqual([id.seqno]);
    expect(link.masterchainId.seqno).toBe(block.block.master_ref_seqno + 1);

    expect((await conn.client.getLibraries([Buffer.alloc(32, 9)])).result).toEqual([]);
    const now = await conn.client.getCurrentTime();
    expect(Math.abs(now - Date.now() / 1000)).toBeLessThan(120);
  });

  it('getOutMsgQueueSizes lists the masterchain block and the shard tops with the messages waiting for delivery', async () => {
    await traffic.step();
    const head = (await conn.client.getMasterchainInfo()).last;
    // Upstream lists shards in the ShardHashes tree's (prefix) order: 0x4000… before 0xc000….
    const unsigned = (shard: string) => BigInt.asUintN(64, BigInt(shard));
    const shardTops = Object.entries((await conn.client.getAllShardsInfo(head)).shards['0'])
      .map(([shard, seqno]): [number, string, number] => [0, shard, seqno])
      .sort((a, b) => (unsigned(a[1]) < unsigned(b[1]) ? -1 : 1));
    expect(shardTops).toHaveLength(2);
    const all = await conn.engine.query(getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 0, wc: null, shard: null });
    expect(all.extMsgQueueSizeLimit).toBe(8000);
    expect(all.shards[0].id).toEqual(head);
    expect(all.shards.slice(1).map((s) => [s.id.workchain, s.id.shard, s.id.seqno])).toEqual(shardTops);
    // Each waiting message was sent in that block: read them from the block itself.
    for (const s of all.shards) {
      const sent = (await fetchBlock(s.id)).transactions.reduce((n, t) => n + t.out_msgs.filter((m) => m.destination).length, 0);
      expect(s.size).toBe(sent);
    }
    expect(chain.pending().internal).toBeGreaterThan(0);
    expect(all.shards.reduce((n, s) => n + s.size, 0)).toBe(chain.pending().internal);
    const one = await conn.engine.query(getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 1, wc: 0, shard: shardTops[0][1] });
    expect(one.shards.map((s) => s.id)).toEqual([all.shards[1].id]);
    const whole = await conn.engine.query(getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 1, wc: 0, shard: MC_SHARD });
    expect(whole.shards).toEqual(all.shards.slice(1));
  });

  it('answers an unknown or unimplemented method and an unknown block with a liteserver error, keeping the connection', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    await expect(conn.engine.query(Functions.liteServer_getValidatorStats, { kind: 'liteServer.getValidatorStats', mode: 0, id: head, limit: 1, startAfter: null, modifiedAfter: null })).rejects.toThrow(/not implemented/);
    const unknownFn = {
      encodeRequest: (_src: unknown, e: { writeInt32(v: number): void }) => e.writeInt32(0x12345678),
      decodeResponse: () => ({}),
    };
    await expect(conn.engine.query(unknownFn as never, {} as never)).rejects.toThrow(/unknown function/);
    await expect(conn.client.getBlockHeader({ ...head, seqno: head.seqno + 1000 })).rejects.toThrow(/block not found/);
    expect((await conn.client.getMasterchainInfo()).last.seqno).toBe(head.seqno);
  });

  it('continues the chain after a restart from a snapshot', async () => {
    const before = (await conn.client.getMasterchainInfo()).last;
    const zero = chain.zerostate();
    expect(chain.getBlock({ workchain: -1, shard: 1n << 63n, seqno: 1 })!.prevRefs[0]).toEqual(zero);
    const path = join(dir, 'snapshot.json');
    await chain.snapshot(path);
    conn.engine.close();
    traffic.stop();
    await served.close();

    chain = await restoreChain(path);
    traffic = await createTraffic(chain, { seed: SEED, ratePerRound: 12 });
    served = await serve(chain, dir);
    conn = await connect(served.configPath);
    const info = await conn.client.getMasterchainInfo();
    expect(info.last).toEqual(before);
    expect(info.init.rootHash.toString('hex')).toBe(zero.rootHash);
    await traffic.step();
    const next = (await conn.client.getMasterchainInfo()).last;
    expect(next.seqno).toBe(before.seqno + 1);
    const records = await fetchBlock(next);
    expect(records.block.prev_refs[0].root_hash).toBe(b64(before.rootHash));
    expect(records.transactions.length).toBeGreaterThan(0);
    for (const top of records.shards) {
      const shardBlock = await fetchBlock(toTlBlockId(top));
      const prevTop = (await conn.client.getAllShardsInfo(before)).shards['0'];
      expect(shardBlock.block.prev_refs[0].seqno).toBe(prevTop[BigInt.asIntN(64, BigInt(`0x${top.shard}`)).toString()]);
    }
    expect(await conn.client.open(wallet).getSeqno()).toBe(1);
  });
});
