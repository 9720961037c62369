import {
  Cell as CoreCell,
  Dictionary,
  type DictionaryValue,
  loadCurrencyCollection as coreLoadCurrencyCollection,
  loadTransaction as coreLoadTransaction,
  type Slice as CoreSlice,
  type Transaction as CoreTransaction,
} from '@ton/core';
import { describe, expect, it } from 'vitest';
import { MERKLE_UPDATE, PRUNED_BRANCH } from '../boc/cells.js';
import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { type ExtBlkRef, loadBlock, type ShardDescr } from '../tlb/block.js';
import { loadTransaction } from '../tlb/transaction.js';
import { fixtureTransactions, readFixture } from '../test-support/fixtures.js';
import { type BlockDesc, buildBlock } from './block.js';
import type { Cell } from './cell.js';
import { cellFromBoc, cellFromTable, cellToBoc } from './cell-boc.js';
import type { ShardDescrDesc } from './mc-extra.js';

const hash = (c: string) => c.repeat(64);
const ref = (seqno: number, c: string): ExtBlkRef => ({ endLt: BigInt(seqno) * 1000n + 7n, seqno, rootHash: hash(c), fileHash: hash(c === 'f' ? 'e' : 'f') });

/** Distinct fixture transactions of a workchain (the fixture lists a few transactions under two categories). */
function fixtureTxCells(workchain: number): Cell[] {
  const seen = new Set<string>();
  return fixtureTransactions()
    .filter((t) => t.account.startsWith(`${workchain}:`) && !seen.has(t.hash_hex) && seen.add(t.hash_hex))
    .map((t) => cellFromBoc(Buffer.from(t.boc_base64, 'base64')));
}

function ltRange(txs: Cell[]): { startLt: bigint; endLt: bigint } {
  const lts = txs.map((c) => coreLoadTransaction(CoreCell.fromBoc(Buffer.from(cellToBoc(c)))[0].beginParse()).lt);
  return { startLt: lts.reduce((a, b) => (a < b ? a : b)), endLt: lts.reduce((a, b) => (a > b ? a : b)) + 1n };
}

/** @ton/core value parsers for augmented dictionaries: skip the leaf extra, then read the value. */
function skippingExtra<V>(skip: (s: CoreSlice) => void, parse: (s: CoreSlice) => V): DictionaryValue<V> {
  return {
    serialize: () => {
      throw new Error('read only');
    },
    parse: (s) => {
      skip(s);
      return parse(s);
    },
  };
}

type CoreAccountBlock = { addr: string; txs: CoreTransaction[]; fees: bigint };

/** ShardAccountBlocks read with @ton/core's Dictionary only. */
function coreAccountBlocks(root: CoreCell): CoreAccountBlock[] {
  const extra = root.refs[3].beginParse();
  expect(extra.loadUint(32)).toBe(0x4a33f6fd);
  extra.loadRef(); // in_msg_descr
  extra.loadRef(); // out_msg_descr
  const accountBlocks = extra.loadRef();
  const tx = skippingExtra(coreLoadCurrencyCollection, (s) => coreLoadTransaction(s.loadRef().beginParse()));
  const account = skippingExtra<CoreAccountBlock>(
    () => undefined,
    (s) => {
      const fees = coreLoadCurrencyCollection(s).coins;
      expect(s.loadUint(4)).toBe(5);
      const addr = s.loadBuffer(32).toString('hex');
      const txs = Dictionary.loadDirect(Dictionary.Keys.BigUint(64), tx, s).values();
      expect(s.loadRef().beginParse().loadUint(8)).toBe(0x72);
      return { addr, txs, fees };
    },
  );
  return Dictionary.load(Dictionary.Keys.BigUint(256), account, accountBlocks.beginParse()).values();
}

describe('buildBlock with real transactions', () => {
  const txs = fixtureTxCells(0);
  const info: BlockDesc['info'] = {
    shard: { workchain: 0, shard: 1n << 63n },
    seqno: 1234,
    genUtime: 1_750_000_000,
    ...ltRange(txs),
    genValidatorListHashShort: 0x12345678,
    genCatchainSeqno: 77,
    minRefMcSeqno: 999,
    prevKeyBlockSeqno: 900,
    wantMerge: true,
    genSoftware: { version: 11, capabilities: 0x7ffen },
    masterRef: ref(1000, 'a'),
    prevRefs: [ref(1233, 'b')],
  };
  const built = buildBlock({
    globalId: -217,
    info,
    stateUpdate: { oldHash: hash('1'), newHash: hash('2'), oldDepth: 30, newDepth: 31 },
    transactions: txs,
    randSeed: hash('3'),
    createdBy: hash('4'),
  });

  it('decodes with parseBoc + loadBlock to the same header, value flow and transactions', () => {
    const table = parseBoc(built.boc);
    expect(table.hashHex(table.roots[0])).toBe(built.rootHash);
    const block = loadBlock(table);
    expect(block.globalId).toBe(-217);
    expect(block.info).toMatchObject({ ...info, shard: { workchain: 0, shard: 1n << 63n, shardPfxBits: 0 }, notMaster: true, flags: 1, vertSeqnoIncr: false, keyBlock: false });
    expect(block.stateUpdate).toEqual({ oldHash: hash('1'), newHash: hash('2') });
    const su = table.refs[table.roots[0] * 4 + 2];
    expect(table.special[su]).toBe(MERKLE_UPDATE);
    expect(table.special[table.refs[su * 4]]).toBe(PRUNED_BRANCH);
    expect(block.extra.randSeed).toBe(hash('3'));
    expect(block.extra.createdBy).toBe(hash('4'));
    expect(block.extra.custom).toBeUndefined();

    const original = txs.map((c) => {
      const t = parseBoc(cellToBoc(c));
      const tx = loadTransaction(new Slice(t, t.roots[0]));
      return { hash: c.hashHex(), tx, inHash: tx.inMsg && t.hashHex(tx.inMsg.cell), outHashes: tx.outMsgs.map((m) => t.hashHex(m.cell)) };
    });
    const decoded = block.extra.accountBlocks.flatMap((a) => a.transactions.map((t) => table.hashHex(t.cell)));
    expect(decoded.sort()).toEqual(original.map((o) => o.hash).sort());
    for (const a of block.extra.accountBlocks) {
      const own = original.filter((o) => o.tx.accountAddr === a.accountAddr).sort((x, y) => (x.tx.lt < y.tx.lt ? -1 : 1));
      expect(a.transactions.map((t) => t.lt)).toEqual(own.map((o) => o.tx.lt));
      expect(a.stateUpdate).toEqual({ oldHash: own[0].tx.stateUpdate.oldHash, newHash: own[own.length - 1].tx.stateUpdate.newHash });
    }
    expect(new Set(block.extra.accountBlocks.map((a) => a.accountAddr)).size).toBeLessThan(txs.length); // several accounts have 2+ txs

    // InMsgDescr: one entry per inbound message; those created by a transaction of this block are imm.
    const created = new Set(original.flatMap((o) => o.outHashes));
    const inbound = original.filter((o) => o.tx.inMsg);
    expect(block.extra.inMsgDescr).toHaveLength(inbound.length);
    const kinds = new Map(block.extra.inMsgDescr.map((e) => [e.msgHash, e.kind]));
    for (const o of inbound) {
      const h = o.inHash!;
      const expected = o.tx.inMsg!.info.type === 'external-in' ? 'msg_import_ext' : created.has(h) ? 'msg_import_imm' : 'msg_import_fin';
      expect(kinds.get(h)).toBe(expected);
    }
    const outCount = original.reduce((n, o) => n + o.tx.outMsgs.length, 0);
    const deq = block.extra.outMsgDescr.filter((e) => e.kind === 'msg_export_deq_imm').length;
    expect(block.extra.outMsgDescr).toHaveLength(outCount + deq);

    // Value flow defaults: fees collected = transaction fees + import fees; zero burned in value_flow_v2.
    const txFees = original.reduce((n, o) => n + o.tx.totalFees.grams, 0n);
    expect(block.valueFlow.feesCollected.grams).toBe(txFees + block.valueFlow.feesImported.grams);
    expect(block.valueFlow.burned).toEqual({ grams: 0n, other: {} });
    expect(block.valueFlow.fromPrevBlk.grams).toBe(0n);
  });

  it('is read by @ton/core: same root hash, same transactions through Dictionary, extras are fee sums', () => {
    const root = CoreCell.fromBoc(Buffer.from(built.boc))[0];
    expect(root.hash().toString('hex')).toBe(built.rootHash);
    const accounts = coreAccountBlocks(root);
    const hashes = accounts.flatMap((a) => a.txs.map((t) => t.hash().toString('hex')));
    expect(hashes.sort()).toEqual(txs.map((c) => c.hashHex()).sort());
    const extra = root.refs[3].beginParse();
    extra.skip(32);
    const tag = (bits: number) => (s: CoreSlice) => s.loadUint(bits);
    const inDescr = Dictionary.load(Dictionary.Keys.BigUint(256), skippingExtra((s) => (s.loadCoins(), coreLoadCurrencyCollection(s)), tag(3)), extra.loadRef().beginParse());
    const outDescr = Dictionary.load(Dictionary.Keys.BigUint(256), skippingExtra(coreLoadCurrencyCollection, tag(3)), extra.loadRef().beginParse());
    const byTag = (d: Dictionary<bigint, number>) => d.values().reduce<Record<number, number>>((m, t) => ((m[t] = (m[t] ?? 0) + 1), m), {});
    // msg_import_ext$000, msg_import_imm$011, msg_import_fin$100; msg_export_ext$000, msg_export_new$001, msg_export_imm$010, msg_export_deq_imm$100
    expect(byTag(inDescr)).toEqual({ 0b000: 3, 0b011: 4, 0b100: 16 });
    expect(byTag(outDescr)).toEqual({ 0b000: 2, 0b001: 16, 0b010: 4, 0b100: 16 });
    for (const a of accounts) {
      expect(a.fees).toBe(a.txs.reduce((n, t) => n + t.totalFees.coins, 0n));
      for (const t of a.txs) expect(t.address.toString(16).padStart(64, '0')).toBe(a.addr);
    }
  });

  it('rejects transactions outside the block lt range', () => {
    expect(() => buildBlock({ globalId: 0, info: { ...info, endLt: info.startLt + 1n }, stateUpdate: { oldHash: hash('1'), newHash: hash('2') }, transactions: txs })).toThrow(/outside the block/);
  });
});

describe('buildBlock for the masterchain', () => {
  const keyTable = parseBoc(readFixture('blocks/mc_-1_8000000000000000_46991999_keyblock.boc'));
  const config = loadBlock(keyTable).extra.custom!.config!;
  const params = new Map([...config.params].map(([n, c]) => [n, cellFromTable(keyTable, c)]));

  const shard = (s: bigint, seqno: number): ShardDescrDesc => ({
    workchain: 0,
    shard: s,
    seqno,
    regMcSeqno: 500 + seqno,
    startLt: BigInt(seqno) * 1_000_000n,
    endLt: BigInt(seqno) * 1_000_000n + 5n,
    rootHash: hash((seqno % 10).toString()),
    fileHash: hash('e'),
    genUtime: 1_750_000_000 + seqno,
    ...(seqno % 2 ? { wantSplit: true, nextCatchainSeqno: 7, splitMergeAt: { type: 'split', utime: 1_750_000_100, interval: 60 }, feesCollected: { grams: 5n }, fundsCreated: { grams: 1_000_000_000n } } : {}),
  });
  const layouts: [string, bigint[]][] = [
    ['two halves', [0x4000000000000000n, 0xc000000000000000n]],
    ['four quarters', [0x2000000000000000n, 0x6000000000000000n, 0xa000000000000000n, 0xe000000000000000n]],
    ['uneven', [0x2000000000000000n, 0x6000000000000000n, 0xc000000000000000n]],
  ];
  for (const [label, ids] of layouts) {
    it(`ShardHashes (${label}) decode with loadBlock to the same ShardDescr list; a key block carries its config`, () => {
      const shards = ids.map((s, i) => shard(s, 100 + i));
      const txs = fixtureTxCells(-1);
      const built = buildBlock({
        globalId: -217,
        info: { shard: { workchain: -1, shard: 1n << 63n }, seqno: 600, keyBlock: true, genUtime: 1_750_000_000, ...ltRange(txs), prevRefs: [ref(599, 'c')] },
        stateUpdate: { oldHash: hash('5'), newHash: hash('6') },
        transactions: txs,
        mcExtra: { shards, config: { configAddr: hash('5'), params } },
      });
      expect(CoreCell.fromBoc(Buffer.from(built.boc))[0].hash().toString('hex')).toBe(built.rootHash);
      const table = parseBoc(built.boc);
      const block = loadBlock(table);
      expect(block.info.notMaster).toBe(false);
      expect(block.info.masterRef).toBeUndefined();
      const expected: ShardDescr[] = shards.map((s) => ({
        beforeSplit: false,
        beforeMerge: false,
        wantSplit: false,
        wantMerge: false,
        nxCcUpdated: false,
        nextCatchainSeqno: 0,
        nextValidatorShard: s.shard,
        minRefMcSeqno: 0,
        splitMergeAt: { type: 'none' },
        feesCollected: { grams: 0n, other: {} },
        fundsCreated: { grams: 0n, other: {} },
        ...s,
        ...(s.feesCollected ? { feesCollected: { grams: s.feesCollected.grams, other: {} }, fundsCreated: { grams: s.fundsCreated!.grams, other: {} } } : {}),
      }));
      expect(block.extra.custom!.shardHashes).toEqual(expected);
      expect(block.extra.custom!.keyBlock).toBe(true);
      const got = block.extra.custom!.config!;
      expect(got.configAddr).toBe(hash('5'));
      expect([...got.params].map(([n, c]) => [n, table.hashHex(c)])).toEqual([...params].map(([n, c]) => [n, c.hashHex()]));
      expect(block.extra.accountBlocks.flatMap((a) => a.transactions).length).toBe(txs.length);
    });
  }

  it('rejects shard sets with gaps or overlaps, and a key block without config', () => {
    const base = { globalId: -217, stateUpdate: { oldHash: hash('5'), newHash: hash('6') }, info: { shard: { workchain: -1, shard: 1n << 63n }, seqno: 2, genUtime: 1, startLt: 0n, endLt: 1n, prevRefs: [ref(1, 'c')] } };
    expect(() => buildBlock({ ...base, mcExtra: { shards: [shard(0x4000000000000000n, 1)] } })).toThrow(/no shard covers 0:c000000000000000/);
    expect(() => buildBlock({ ...base, mcExtra: { shards: [shard(1n << 63n, 1), shard(0x4000000000000000n, 2)] } })).toThrow(/overlaps/);
    expect(() => buildBlock({ ...base, info: { ...base.info, keyBlock: true } })).toThrow(/key block carries the config/);
  });
});
