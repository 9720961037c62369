/**
 * Validator signatures and block proofs, checked as a light client would and without this
 * package's code: the validator set is read with @ton/core from the config param 34 the liteserver
 * returns, node ids are recomputed (sha256 of TL pub.ed25519), signatures are verified with
 * node:crypto, Merkle proofs are hashed by @ton/core and compared with the block ids. Queries go
 * through the unmodified ton-lite-client.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cell, Dictionary, type DictionaryValue, loadShardStateUnsplit, type Slice } from '@ton/core';
import { crc32c } from '@tonstream/block';
import { type Chain, createChain, createTraffic, restoreChain, type Traffic } from '@tonstream/localnet';
import { Functions, type liteServer_blockLinkForward, type tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connected, serve, type Served } from './test-support/harness.js';

const SEED = 'block-proof-test';
/** Fewer kept rounds than the test produces: the key block (round 1) leaves the history. */
const HISTORY_ROUNDS = 4;
const ROUNDS = 8;

let dir: string;
let chain: Chain;
let traffic: Traffic;
let served: Served;
let conn: Connected;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'localnet-block-proof-'));
  chain = await createChain({ seed: SEED, shards: 2, historyRounds: HISTORY_ROUNDS });
  traffic = await createTraffic(chain, { seed: SEED, ratePerRound: 4 });
  for (let i = 0; i < ROUNDS; i++) await traffic.step();
  served = await serve(chain, dir);
  conn = await connect(served.configPath);
}, 60_000);

afterAll(async () => {
  conn?.engine.close();
  traffic?.stop();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

type ValidatorDescr = { publicKey: Buffer; weight: bigint; adnlAddr: Buffer };
type ValidatorSet = { total: number; main: number; totalWeight: bigint; list: ValidatorDescr[] };

/** validator#53 / validator_addr#73 public_key:(ed25519_pubkey#8e81278a pubkey:bits256) weight:uint64 [adnl_addr:bits256] */
const descrValue: DictionaryValue<ValidatorDescr> = {
  serialize: () => {
    throw new Error('read only');
  },
  parse: (s: Slice) => {
    const tag = s.loadUint(8);
    expect([0x53, 0x73]).toContain(tag);
    expect(s.loadUint(32)).toBe(0x8e81278a);
    const publicKey = s.loadBuffer(32);
    const weight = s.loadUintBig(64);
    return { publicKey, weight, adnlAddr: tag === 0x73 ? s.loadBuffer(32) : Buffer.alloc(32) };
  },
};

/** validators_ext#12 utime_since utime_until total:(## 16) main:(## 16) total_weight:uint64 list:(HashmapE 16 ValidatorDescr) */
function parseValidatorSet(cell: Cell): ValidatorSet {
  const s = cell.beginParse();
  expect(s.loadUint(8)).toBe(0x12);
  s.skip(64);
  const total = s.loadUint(16);
  const main = s.loadUint(16);
  const totalWeight = s.loadUintBig(64);
  const dict = s.loadDict(Dictionary.Keys.Uint(16), descrValue);
  const list = dict.keys().sort((a, b) => a - b).map((k) => dict.get(k)!);
  return { total, main, totalWeight, list };
}

const nodeId = (publicKey: Buffer) => createHash('sha256').update(Buffer.concat([Buffer.from('c6b41348', 'hex'), publicKey])).digest('hex');
const edKey = (raw: Buffer) => createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
/** TL ton.blockId root_cell_hash:int256 file_hash:int256 (constructor 0xc50b6e70, little-endian). */
const toSign = (id: tonNode_blockIdExt) => Buffer.concat([Buffer.from('706e0bc5', 'hex'), id.rootHash, id.fileHash]);

/** The virtual root of a Merkle proof BoC: its level-0 hash is the proven cell's. */
function proofRoot(boc: Buffer): Cell {
  const proof = Cell.fromBoc(boc)[0];
  expect(proof.isExotic).toBe(true);
  expect(proof.bits.length).toBe(8 + 256 + 16);
  const root = proof.refs[0];
  expect(proof.beginParse(true).skip(8).loadBuffer(32).equals(root.hash(0))).toBe(true);
  return root;
}

/** block_info#9bc7a987 ... up to gen_validator_list_hash_short and gen_catchain_seqno. */
function blockInfo(block: Cell) {
  const s = block.refs[0].beginParse();
  expect(s.loadUint(32)).toBe(0x9bc7a987);
  s.skip(32); // version
  s.skip(6); // not_master after_merge before_split after_split want_split want_merge
  const keyBlock = s.loadBit();
  s.skip(1 + 8); // vert_seqno_incr flags
  const seqno = s.loadUint(32);
  s.skip(32 + 2 + 6 + 32 + 64); // vert_seq_no, ShardIdent
  const genUtime = s.loadUint(32);
  s.skip(64 + 64);
  const validatorListHashShort = s.loadUint(32);
  const catchainSeqno = s.loadUint(32);
  s.skip(32); // min_ref_mc_seqno
  return { keyBlock, seqno, genUtime, validatorListHashShort, catchainSeqno, prevKeyBlockSeqno: s.loadUint(32) };
}

/** What compute_validator_set_hash (crypto/block/block.cpp) hashes: magic, cc_seqno, count, then key, weight, adnl per validator. */
function validatorSetHash(ccSeqno: number, list: ValidatorDescr[]): number {
  const head = Buffer.alloc(12);
  head.writeInt32LE(-1877581587, 0);
  head.writeInt32LE(ccSeqno, 4);
  head.writeUInt32LE(list.length, 8);
  const items = list.map((v) => {
    const w = Buffer.alloc(8);
    w.writeBigInt64LE(v.weight);
    return Buffer.concat([v.publicKey, w, v.adnlAddr]);
  });
  return crc32c(Buffer.concat([head, ...items]));
}

async function validatorSetAt(id: tonNode_blockIdExt): Promise<{ vset: ValidatorSet; shuffle: boolean }> {
  const cfg = await conn.engine.query(Functions.liteServer_getConfigParams, { kind: 'liteServer.getConfigParams', mode: 0, id, paramList: [28, 34] });
  const config = loadShardStateUnsplit(Cell.fromBoc(cfg.configProof)[0].refs[0].beginParse()).extras!.config;
  const p28 = config.get(28)!.beginParse();
  expect(p28.loadUint(8)).toBe(0xc2);
  p28.skip(7);
  return { vset: parseValidatorSet(config.get(34)!), shuffle: p28.loadBit() };
}

/** The key block as a client finds it: the head's prev_key_block_seqno, then lookupBlock (the key block is out of the kept history by now). */
async function keyBlockId(): Promise<tonNode_blockIdExt> {
  const head = (await conn.client.getMasterchainInfo()).last;
  const header = await conn.engine.query(Functions.liteServer_getBlockHeader, { kind: 'liteServer.getBlockHeader', id: head, mode: 0 });
  const info = blockInfo(proofRoot(header.headerProof));
  expect(info.keyBlock).toBe(false);
  expect(head.seqno - HISTORY_ROUNDS).toBeGreaterThan(info.prevKeyBlockSeqno);
  const found = await conn.client.lookupBlockByID({ workchain: -1, shard: '-9223372036854775808', seqno: info.prevKeyBlockSeqno });
  return { kind: 'tonNode.blockIdExt', ...found.id };
}

describe('validator set and signatures', () => {
  it('config param 34 lists the validators (all on the masterchain, no shuffle); the block header names their set', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const { vset, shuffle } = await validatorSetAt(head);
    expect(vset.list.length).toBeGreaterThanOrEqual(3);
    expect(vset.total).toBe(vset.list.length);
    expect(vset.main).toBe(vset.total);
    expect(vset.totalWeight).toBe(vset.list.reduce((s, v) => s + v.weight, 0n));
    expect(shuffle).toBe(false);
    expect(new Set(vset.list.map((v) => v.publicKey.toString('hex'))).size).toBe(vset.list.length);

    const block = await conn.engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: head });
    const root = Cell.fromBoc(block.data)[0];
    expect(root.hash().equals(head.rootHash)).toBe(true);
    const info = blockInfo(root);
    expect(info.validatorListHashShort).toBe(validatorSetHash(info.catchainSeqno, vset.list));
    expect(info.validatorListHashShort).not.toBe(0);
  });

  it('getBlockProof from the key block: one forward link whose signatures verify against param 34, with 2/3 of the weight', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const key = await keyBlockId();
    const proof = await conn.engine.query(Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 1, knownBlock: key, targetBlock: head });
    expect(proof.complete).toBe(true);
    expect(proof.from.seqno).toBe(key.seqno);
    expect(proof.to.rootHash.equals(head.rootHash)).toBe(true);
    expect(proof.steps).toHaveLength(1);
    const link = proof.steps[0] as liteServer_blockLinkForward;
    expect(link.kind).toBe('liteServer.blockLinkForward');
    expect(link.toKeyBlock).toBe(false);

    // config_proof: the key block (its root hash) with the config it carries.
    const keyRoot = proofRoot(link.configProof);
    expect(keyRoot.hash(0).equals(key.rootHash)).toBe(true);
    expect(blockInfo(keyRoot).keyBlock).toBe(true);
    const mcExtra = keyRoot.refs[3].refs[3];
    const config = mcExtra.refs[mcExtra.refs.length - 1];
    const paramsCell = (n: number) => {
      // Hashmap 32 ^Cell, walked by hand along the key's bits (the proof prunes other branches).
      let cell = config;
      let bits = (n >>> 0).toString(2).padStart(32, '0');
      for (;;) {
        const s = cell.beginParse(true);
        const label = readLabel(s, bits.length);
        expect(bits.startsWith(label)).toBe(true);
        bits = bits.slice(label.length);
        if (bits.length === 0) return cell.refs[0];
        cell = cell.refs[Number(bits[0])];
        bits = bits.slice(1);
      }
    };
    const vset = parseValidatorSet(paramsCell(34));
    expect(vset.list.map((v) => v.publicKey.toString('hex'))).toEqual((await validatorSetAt(head)).vset.list.map((v) => v.publicKey.toString('hex')));

    // dest_proof: the target's header, naming the set and its catchain seqno.
    const destRoot = proofRoot(link.destProof);
    expect(destRoot.hash(0).equals(head.rootHash)).toBe(true);
    const info = blockInfo(destRoot);
    expect(info.seqno).toBe(head.seqno);
    expect(link.signatures.catchainSeqno).toBe(info.catchainSeqno);
    expect(link.signatures.validatorSetHash >>> 0).toBe(info.validatorListHashShort);
    expect(info.validatorListHashShort).toBe(validatorSetHash(info.catchainSeqno, vset.list));

    // signatures: node ids recomputed from the keys, ed25519 over TL ton.blockId.
    expect(link.signatures.signatures).toHaveLength(vset.list.length);
    const byNode = new Map(vset.list.map((v) => [nodeId(v.publicKey), v]));
    let signed = 0n;
    for (const sig of link.signatures.signatures) {
      const v = byNode.get(sig.nodeIdShort.toString('hex'));
      expect(v, `node ${sig.nodeIdShort.toString('hex')} is in the set`).toBeDefined();
      expect(verify(null, toSign(head), edKey(v!.publicKey), sig.signature)).toBe(true);
      byNode.delete(sig.nodeIdShort.toString('hex'));
      signed += v!.weight;
    }
    expect(signed * 3n > vset.totalWeight * 2n).toBe(true);
    // The same signatures do not verify another block.
    const other = { ...head, fileHash: Buffer.alloc(32, 1) };
    const first = link.signatures.signatures[0];
    const firstKey = vset.list.find((v) => nodeId(v.publicKey) === first.nodeIdShort.toString('hex'))!;
    expect(verify(null, toSign(other), edKey(firstKey.publicKey), first.signature)).toBe(false);
  });

  it('getBlockProof without a target proves up to the last block; a key block to itself is complete with no links', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const key = await keyBlockId();
    const toLast = await conn.engine.query(Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 0, knownBlock: key, targetBlock: null });
    expect(toLast.to.seqno).toBe(head.seqno);
    expect(toLast.steps).toHaveLength(1);
    const self = await conn.engine.query(Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 1, knownBlock: key, targetBlock: key });
    expect(self.complete).toBe(true);
    expect(self.steps).toHaveLength(0);
  });

  it('answers what it cannot prove with liteServer.error: backward links, a shard block, an unknown block', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const key = await keyBlockId();
    const ask = (knownBlock: tonNode_blockIdExt, targetBlock: tonNode_blockIdExt) => conn.engine.query(Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 1, knownBlock, targetBlock });
    await expect(ask(head, key)).rejects.toThrow(/backward/);
    const shard = (await conn.client.getAllShardsInfo(head)).shards[0];
    const shardId = { kind: 'tonNode.blockIdExt' as const, workchain: 0, shard: Object.keys(shard)[0], seqno: 1, rootHash: Buffer.alloc(32), fileHash: Buffer.alloc(32) };
    await expect(ask(key, shardId)).rejects.toThrow();
    await expect(ask(key, { ...head, rootHash: Buffer.alloc(32, 5) })).rejects.toThrow();
  });

  it('signatures and the key block survive a snapshot and restore', async () => {
    const path = join(dir, 'snapshot.json');
    await chain.snapshot(path);
    const restored = await restoreChain(path);
    const head = chain.getBlock(chain.head())!;
    const again = restored.getBlock(restored.head())!;
    expect(again.signatures?.map((s) => Buffer.from(s.signature).toString('hex'))).toEqual(head.signatures?.map((s) => Buffer.from(s.signature).toString('hex')));
    const key = chain.config().keyBlock!;
    expect(restored.getBlock(key)?.signatures).toHaveLength(head.signatures!.length);
    const next = await restored.produceRound();
    expect(next.mc.signatures).toHaveLength(head.signatures!.length);
    expect(restored.validatorSet()?.hashShort).toBe(chain.validatorSet()?.hashShort);
  });
});

describe('getShardBlockProof', () => {
  it('links each shard block to the masterchain block whose ShardHashes commit its root and file hash', async () => {
    const head = (await conn.client.getMasterchainInfo()).last;
    const all = await conn.client.getAllShardsInfo(head);
    const ids = Object.entries(all.shards[0]).map(([shard, seqno]) => ({ shard, seqno }));
    expect(ids.length).toBe(2);
    for (const { shard, seqno } of ids) {
      const found = await conn.client.lookupBlockByID({ workchain: 0, shard, seqno });
      const id = found.id;
      const data = await conn.engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: { kind: 'tonNode.blockIdExt', ...id } });
      expect(Cell.fromBoc(data.data)[0].hash().equals(id.rootHash)).toBe(true);
      expect(createHash('sha256').update(data.data).digest().equals(id.fileHash)).toBe(true);

      const answer = await conn.engine.query(Functions.liteServer_getShardBlockProof, { kind: 'liteServer.getShardBlockProof', id: { kind: 'tonNode.blockIdExt', ...id } });
      expect(answer.masterchainId.seqno).toBe(head.seqno);
      expect(answer.links).toHaveLength(1);
      const [link] = answer.links;
      expect(link.id.rootHash.equals(id.rootHash)).toBe(true);
      const mc = proofRoot(link.proof);
      expect(mc.hash(0).equals(answer.masterchainId.rootHash)).toBe(true);
      const descr = shardDescrIn(mc, BigInt.asUintN(64, BigInt(shard)));
      expect(descr.seqno).toBe(id.seqno);
      expect(descr.rootHash.equals(id.rootHash)).toBe(true);
      expect(descr.fileHash.equals(id.fileHash)).toBe(true);
    }
  });
});

/** hml_short$0 / hml_long$10 / hml_same$11 label of an edge with `m` key bits left. */
function readLabel(s: Slice, m: number): string {
  const width = Math.ceil(Math.log2(m + 1));
  if (!s.loadBit()) {
    let n = 0;
    while (s.loadBit()) n++;
    return Array.from({ length: n }, () => (s.loadBit() ? '1' : '0')).join('');
  }
  if (!s.loadBit()) {
    const n = s.loadUint(width);
    return Array.from({ length: n }, () => (s.loadBit() ? '1' : '0')).join('');
  }
  const v = s.loadBit() ? '1' : '0';
  return v.repeat(s.loadUint(width));
}

/** Workchain 0's ShardDescr for `shard` in a masterchain block's McBlockExtra (ShardHashes: HashmapE 32 ^(BinTree ShardDescr)). */
function shardDescrIn(mcBlock: Cell, shard: bigint): { seqno: number; rootHash: Buffer; fileHash: Buffer } {
  const mcExtra = mcBlock.refs[3].refs[3].beginParse(true);
  expect(mcExtra.loadUint(16)).toBe(0xcca5);
  mcExtra.skip(1);
  const hashes = mcExtra.loadDict(Dictionary.Keys.Int(32), Dictionary.Values.Cell());
  let node = hashes.get(0)!;
  let depth = 0;
  for (;;) {
    const s = node.beginParse(true);
    if (!s.loadBit()) {
      const tag = s.loadUint(4);
      expect([0xa, 0xb]).toContain(tag);
      const seqno = s.loadUint(32);
      s.skip(32 + 64 + 64);
      return { seqno, rootHash: s.loadBuffer(32), fileHash: s.loadBuffer(32) };
    }
    node = node.refs[Number((shard >> BigInt(63 - depth)) & 1n)];
    depth++;
  }
}
