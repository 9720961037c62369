import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cell as CoreCell } from '@ton/core';
import { accountStateRecord, type Augmentation, beginCell, type Builder, type Cell, cellFromBoc, cellToBoc, storeCurrency, storeHashmapAugE, storeShardHashes, storeShardIdent } from '@tonstream/block';
import { afterAll, describe, expect, it } from 'vitest';
import { BocReader, fileSource, memorySource, readShardStateHead, shardAccounts, stateShardTops, subtreeBoc } from './state-boc.js';

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/localnet/account-states');
const fixture = (name: string) => cellFromBoc(new Uint8Array(Buffer.from(readFileSync(join(FIXTURES, `${name}.boc`)))));

/** depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection */
const depthBalance: Augmentation<{ grams: bigint }> = {
  store: (b, e) => {
    b.storeUint(0, 5);
    storeCurrency(b, e);
  },
  combine: (x, y) => ({ grams: x.grams + y.grams }),
  empty: { grams: 0n },
};

type Entry = { key: string; account: Cell; lt: bigint; hash: string; balance: bigint };

/** A ShardStateUnsplit as a node writes one (the fields the bootstrap reads; the rest empty). */
function shardState(workchain: number, shard: bigint, seqno: number, genUtime: number, entries: Entry[], custom?: Cell): Cell {
  const accounts = beginCell();
  storeHashmapAugE(
    accounts,
    256,
    entries.map((e) => ({ key: e.key, extra: { grams: e.balance }, store: (b: Builder) => b.storeRef(e.account).storeHash(e.hash).storeUint(e.lt, 64) })),
    depthBalance,
  );
  const b = beginCell().storeUint(0x9023afe2, 32).storeInt(-239, 32);
  storeShardIdent(b, { workchain, shard });
  b.storeUint(seqno, 32).storeUint(0, 32).storeUint(genUtime, 32).storeUint(1_000_000n, 64).storeUint(0, 32);
  b.storeRef(beginCell().storeBit(0).storeUint(0, 64).storeBit(0).storeBit(0).endCell());
  b.storeBit(0).storeRef(accounts.endCell());
  const other = beginCell().storeUint(0, 64).storeUint(0, 64);
  storeCurrency(other, { grams: 0n });
  storeCurrency(other, { grams: 0n });
  b.storeRef(other.storeBit(0).storeBit(0).endCell());
  b.storeMaybeRef(custom ?? null);
  return b.endCell();
}

const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const accounts = { active: fixture('active'), frozen: fixture('frozen'), uninit: fixture('uninit'), none: beginCell().storeBit(0).endCell() };
const kinds = ['active', 'frozen', 'uninit', 'none'] as const;
// 600 accounts: shared cells (the same account cells under many keys), labels of every kind, account_none among them.
const entries: Entry[] = Array.from({ length: 600 }, (_, i) => ({ key: hex(`k${i}`), account: accounts[kinds[i % 4]], lt: BigInt(1000 + i), hash: hex(`h${i}`), balance: BigInt(i) }));
// Neighbouring keys (long shared labels, a fork at the last bit) and the extremes.
entries.push(
  { key: 'f'.repeat(64), account: accounts.active, lt: 7n, hash: hex('x'), balance: 1n },
  { key: '0'.repeat(64), account: accounts.uninit, lt: 8n, hash: hex('y'), balance: 1n },
  { key: `${'a'.repeat(63)}0`, account: accounts.frozen, lt: 9n, hash: hex('z'), balance: 1n },
  { key: `${'a'.repeat(63)}1`, account: accounts.active, lt: 10n, hash: hex('w'), balance: 1n },
);
const expected = entries
  .filter((e) => e.account !== accounts.none)
  .sort((a, b) => (a.key < b.key ? -1 : 1))
  .map((e) => ({ account: `0:${e.key.toUpperCase()}`, lastTransLt: e.lt.toString(), lastTransHash: Buffer.from(e.hash, 'hex').toString('base64'), accountHash: Buffer.from(e.account.hash()).toString('hex') }));

const state = shardState(0, 0x4000000000000000n, 77, 1_700_000_123, entries);
const plain = cellToBoc(state);
// What a node writes (index, CRC), by @ton/core.
const indexed = new Uint8Array(CoreCell.fromBoc(Buffer.from(plain))[0].toBoc({ idx: true, crc32: true }));
const dir = mkdtempSync(join(tmpdir(), 'state-boc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function walk(reader: BocReader, after?: bigint) {
  const head = readShardStateHead(reader);
  return [...shardAccounts(reader, head, after)].map((e) => ({
    account: e.account,
    lastTransLt: e.lastTransLt,
    lastTransHash: e.lastTransHash,
    accountHash: CoreCell.fromBoc(Buffer.from(subtreeBoc(reader, e.accountCell)))[0].hash().toString('hex'),
  }));
}

describe('BocReader over a shard state', () => {
  const sources = {
    'in memory, no index': () => memorySource(plain),
    'in memory, indexed with CRC (@ton/core)': () => memorySource(indexed),
    'a file read in 64-byte pages, 3 kept': () => {
      const path = join(dir, 'plain.boc');
      writeFileSync(path, plain);
      return fileSource(path, { pageBytes: 64, pages: 3 });
    },
    'an indexed file in 100-byte pages': () => {
      const path = join(dir, 'indexed.boc');
      writeFileSync(path, indexed);
      return fileSource(path, { pageBytes: 100, pages: 2 });
    },
  };
  for (const [name, source] of Object.entries(sources)) {
    it(`${name}: the head, and every account in key order with its Account subtree (account_none left out)`, () => {
      const reader = new BocReader(source());
      reader.verify();
      expect(readShardStateHead(reader)).toMatchObject({ workchain: 0, shard: 0x4000000000000000n, seqno: 77, genUtime: 1_700_000_123, custom: null });
      expect(walk(reader)).toEqual(expected);
      reader.source.close();
    });
  }

  it('after a key: only the keys above it, whichever key it is', () => {
    const reader = new BocReader(memorySource(indexed));
    for (const k of [0, 1, 17, 300, expected.length - 2, expected.length - 1]) {
      const key = BigInt(`0x${expected[k].account.slice(2)}`);
      expect(walk(reader, key)).toEqual(expected.slice(k + 1));
    }
    // A key that is no account's: the walk goes on from the next one.
    const between = BigInt(`0x${expected[5].account.slice(2)}`) + 1n;
    expect(walk(reader, between)).toEqual(expected.slice(6));
  });

  it('an account cut out as a BoC of its own gives the record its original BoC gives', () => {
    const reader = new BocReader(memorySource(plain));
    const head = readShardStateHead(reader);
    const ctx = { lastTransLt: '1', lastTransHash: 'AA==', mcSeqno: 5, genUtime: head.genUtime };
    for (const e of [...shardAccounts(reader, head)].slice(0, 8)) {
      const original = entries.find((x) => `0:${x.key.toUpperCase()}` === e.account)!.account;
      expect(accountStateRecord(subtreeBoc(reader, e.accountCell), { account: e.account, ...ctx })).toEqual(accountStateRecord(cellToBoc(original), { account: e.account, ...ctx }));
    }
  });

  it('a masterchain state: its shard tops from McStateExtra; an empty ShardAccounts walks to nothing', () => {
    const tops = [0x4000000000000000n, 0xc000000000000000n].map((shard, i) => ({ workchain: 0, shard, seqno: 40 + i, regMcSeqno: 50, startLt: 1n, endLt: 2n, rootHash: hex(`r${i}`), fileHash: hex(`f${i}`), genUtime: 1 }));
    const extra = beginCell().storeUint(0xcc26, 16);
    storeShardHashes(extra, tops);
    const mc = shardState(-1, 1n << 63n, 51, 1_700_000_200, [], extra.storeHash(hex('config')).storeRef(beginCell().endCell()).endCell());
    const reader = new BocReader(memorySource(cellToBoc(mc)));
    const head = readShardStateHead(reader);
    expect(head).toMatchObject({ workchain: -1, shard: 1n << 63n, seqno: 51, accountsRoot: null });
    expect([...shardAccounts(reader, head)]).toEqual([]);
    expect(stateShardTops(reader, head).map((t) => [t.workchain, t.shard, t.seqno])).toEqual([[0, 0x4000000000000000n, 40], [0, 0xc000000000000000n, 41]]);
  });

  it('refuses a corrupt CRC, a truncated file and a BoC that is not a shard state', () => {
    const bad = Uint8Array.from(indexed);
    bad[bad.length - 20] ^= 1;
    expect(() => new BocReader(memorySource(bad)).verify()).toThrow(/CRC32-C mismatch/);
    expect(() => new BocReader(memorySource(indexed.subarray(0, indexed.length - 1)))).toThrow(/truncated/);
    expect(() => readShardStateHead(new BocReader(memorySource(cellToBoc(accounts.active))))).toThrow(/not a ShardStateUnsplit/);
  });
});
