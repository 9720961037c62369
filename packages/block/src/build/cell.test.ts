import { Address, beginCell as coreBeginCell, Cell as CoreCell, type Builder as CoreBuilder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseBoc } from '../boc/parse-boc.js';
import { fixtureBlocks, sourcesRootHashes } from '../test-support/fixtures.js';
import { randomBig, rng } from '../test-support/random.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { cellFromBoc, cellToBoc } from './cell-boc.js';
import { BuildError } from './errors.js';
import { merkleProof, merkleUpdate, prune } from './merkle.js';

function randomBytes(rand: () => number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let k = 0; k < n; k++) b[k] = Math.floor(rand() * 256);
  return b;
}

type Pair = { ours: Cell; core: CoreCell };

/** The same random operations applied to our Builder and to @ton/core's. */
function randomPair(rand: () => number, pool: Pair[]): Pair {
  const ours = new Builder();
  const core: CoreBuilder = coreBeginCell();
  const ops = Math.floor(rand() * 12);
  for (let k = 0; k < ops; k++) {
    const left = ours.availableBits;
    const op = Math.floor(rand() * 6);
    if (op === 0 && left >= 1) {
      const v = rand() < 0.5;
      ours.storeBit(v);
      core.storeBit(v);
    } else if (op === 1 && left >= 80) {
      const n = 1 + Math.floor(rand() * 80);
      const v = randomBig(rand, n);
      ours.storeUint(n <= 40 ? Number(v) : v, n);
      core.storeUint(v, n);
    } else if (op === 2 && left >= 64) {
      const n = 1 + Math.floor(rand() * 64);
      const v = randomBig(rand, n) - (1n << BigInt(n - 1));
      ours.storeInt(v, n);
      core.storeInt(v, n);
    } else if (op === 3 && left >= 124) {
      const v = randomBig(rand, Math.floor(rand() * 120));
      ours.storeCoins(v);
      core.storeCoins(v);
    } else if (op === 4 && left >= 267) {
      const hash = randomBytes(rand, 32);
      const wc = rand() < 0.5 ? 0 : -1;
      ours.storeAddress({ type: 'std', workchain: wc, hash: hash.toString('hex') });
      core.storeAddress(new Address(wc, hash));
    } else if (op === 5 && left >= 200) {
      const n = Math.floor(rand() * 200);
      const bytes = randomBytes(rand, (n + 7) >> 3);
      ours.storeBits(bytes, n);
      for (let b = 0; b < n; b++) core.storeBit((bytes[b >> 3] >> (7 - (b & 7))) & 1);
    }
  }
  const refs = pool.length ? Math.floor(rand() * 5) : 0;
  for (let r = 0; r < refs; r++) {
    const p = pool[Math.floor(rand() * pool.length)];
    ours.storeRef(p.ours);
    core.storeRef(p.core);
  }
  return { ours: ours.endCell(), core: core.endCell() };
}

function expectSameHashes(p: Pair): void {
  for (let level = 0; level <= 3; level++) {
    expect(Buffer.from(p.ours.hash(level)).toString('hex'), `level ${level}`).toBe(p.core.hash(level).toString('hex'));
    expect(p.ours.depth(level)).toBe(p.core.depth(level));
  }
  expect(p.ours.levelMask).toBe(p.core.mask.value);
}

describe('Cell and Builder', () => {
  it('hash like @ton/core for random ordinary cell trees', () => {
    const rand = rng(1);
    const pool: Pair[] = [];
    for (let k = 0; k < 2000; k++) {
      const p = randomPair(rand, pool);
      expectSameHashes(p);
      pool.push(p);
    }
  });

  it('hash like @ton/core for pruned branches, Merkle proofs and updates, and cells above them', () => {
    const rand = rng(2);
    const pool: Pair[] = [];
    for (let k = 0; k < 300; k++) pool.push(randomPair(rand, pool));
    for (let k = 0; k < 300; k++) {
      const a = pool[Math.floor(rand() * pool.length)];
      const b = pool[Math.floor(rand() * pool.length)];
      const choice = k % 4;
      let p: Pair;
      if (choice === 0) {
        // An ordinary cell over a pruned branch has level 1.
        const pruned = prune(a.ours);
        const corePruned = new CoreCell({ exotic: true, bits: coreBeginCell().storeUint(1, 8).storeUint(1, 8).storeBuffer(a.core.hash(0)).storeUint(a.core.depth(0), 16).endCell().bits });
        p = { ours: new Builder().storeUint(k, 16).storeRef(pruned).storeRef(b.ours).endCell(), core: coreBeginCell().storeUint(k, 16).storeRef(corePruned).storeRef(b.core).endCell() };
      } else if (choice === 1) {
        p = { ours: merkleProof(a.ours), core: exotic(coreBeginCell().storeUint(3, 8).storeBuffer(a.core.hash(0)).storeUint(a.core.depth(0), 16).storeRef(a.core)) };
      } else {
        p = {
          ours: merkleUpdate(a.ours, b.ours),
          core: exotic(
            coreBeginCell().storeUint(4, 8).storeBuffer(a.core.hash(0)).storeBuffer(b.core.hash(0)).storeUint(a.core.depth(0), 16).storeUint(b.core.depth(0), 16).storeRef(a.core).storeRef(b.core),
          ),
        };
      }
      expectSameHashes(p);
      pool.push(p);
    }
  });

  it('rejects overflows and out-of-range values with clear errors', () => {
    expect(() => new Builder().storeUint(0, 1000).storeUint(0, 24)).toThrow(/cell overflow: storing uint24 at bit 1000 needs 1024 bits/);
    const c = new Builder().endCell();
    expect(() => new Builder().storeRef(c).storeRef(c).storeRef(c).storeRef(c).storeRef(c)).toThrow(/at most 4 references/);
    expect(() => new Builder().storeUint(256, 8)).toThrow(BuildError);
    expect(() => new Builder().storeUint(-1, 8)).toThrow(/does not fit/);
    expect(() => new Builder().storeInt(128, 8)).toThrow(/signed/);
    expect(() => new Builder().storeCoins(1n << 120n)).toThrow(/VarUInteger 16 holds at most 15/);
    expect(() => new Builder().storeHash('abc')).toThrow(/hex digits/);
    expect(() => new Builder().storeUint(5, 8).endCell({ special: true })).toThrow(/exotic type byte 5/);
    expect(() => merkleUpdate(c, c).refs[0]).not.toThrow();
  });
});

function exotic(b: CoreBuilder): CoreCell {
  const c = b.endCell();
  return new CoreCell({ exotic: true, bits: c.bits, refs: c.refs });
}

describe('cellFromBoc / cellToBoc on mainnet blocks', () => {
  const roots = sourcesRootHashes();
  for (const { name, bytes } of fixtureBlocks()) {
    it(`${name}: same root hash, every cell hashes like @ton/core, re-serialization round-trips`, () => {
      const ours = cellFromBoc(bytes);
      expect(ours.hashHex()).toBe(roots.get(name));
      const core = CoreCell.fromBoc(bytes)[0];
      const seen = new Set<Cell>();
      const visit = (a: Cell, b: CoreCell) => {
        if (seen.has(a)) return;
        seen.add(a);
        expect(a.hashHex()).toBe(b.hash().toString('hex'));
        if (a.levelMask) expectSameHashes({ ours: a, core: b });
        a.refs.forEach((r, i) => visit(r, b.refs[i]));
      };
      visit(ours, core);

      const boc = cellToBoc(ours);
      const table = parseBoc(boc);
      expect(table.hashHex(table.roots[0])).toBe(roots.get(name));
      expect(CoreCell.fromBoc(Buffer.from(boc))[0].hash().toString('hex')).toBe(roots.get(name));
      expect(cellFromBoc(boc).hashHex()).toBe(roots.get(name));
    });
  }
});
