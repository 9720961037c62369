import { beginCell as coreBeginCell, Cell as CoreCell, Dictionary } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { randomBig, rng } from '../test-support/random.js';
import { keyToBigint, keyToHex, keyToSigned, walkHashmap, walkHashmapAugE, walkHashmapE } from '../tlb/hashmap.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { cellToBoc } from './cell-boc.js';
import { type Augmentation, buildHashmap, storeHashmapAugE, storeHashmapE } from './dict.js';

function randomKeys(rand: () => number, n: number, count: number, mode: number): bigint[] {
  const keys = new Set<bigint>();
  const base = randomBig(rand, n);
  const max = 1n << BigInt(n);
  while (keys.size < Math.min(count, Number(max > 1000n ? 1000n : max))) {
    // Fully random keys, a run of consecutive keys (long shared prefixes, hml_same labels), or a small range.
    const k = mode === 0 ? randomBig(rand, n) : mode === 1 ? (base + BigInt(keys.size)) % max : (base + randomBig(rand, 6)) % max;
    keys.add(k);
  }
  return [...keys];
}

function table(cell: Cell) {
  const t = parseBoc(cellToBoc(cell));
  return { t, root: t.roots[0] };
}

/** A uint32 sum as the extra, to check that every fork holds the sum of the leaves below it. */
const sumAug: Augmentation<number> = { store: (b, e) => b.storeUint(e, 32), combine: (a, b) => a + b, empty: 0 };

/** Walks an augmented dictionary checking each fork's extra against its leaves; returns the subtree sum. */
function checkForkSums(s: Slice, m: number): number {
  let len = 0;
  const kind = s.loadBit() ? (s.loadBit() ? 'same' : 'long') : 'short';
  if (kind === 'short') {
    while (s.loadBit()) len++;
    s.skip(len);
  } else if (kind === 'long') {
    len = s.loadUint(32 - Math.clz32(m));
    s.skip(len);
  } else {
    s.skip(1);
    len = s.loadUint(32 - Math.clz32(m));
  }
  if (m === len) return s.loadUint(32);
  const left = checkForkSums(s.loadRefSlice('left'), m - len - 1);
  const right = checkForkSums(s.loadRefSlice('right'), m - len - 1);
  const extra = s.loadUint(32);
  expect(extra).toBe(left + right);
  return extra;
}

describe('dictionary serialization', () => {
  it('round-trips random key sets through walkHashmap and @ton/core Dictionary.loadDirect', () => {
    const rand = rng(7);
    for (let round = 0; round < 150; round++) {
      const n = [1, 3, 8, 15, 16, 32, 64, 96, 256][round % 9];
      const count = 1 + Math.floor(rand() * 60);
      const keys = randomKeys(rand, n, count, round % 3);
      const values = new Map(keys.map((k) => [k, Math.floor(rand() * 2 ** 32)]));
      const cell = buildHashmap(
        n,
        keys.map((k) => ({ key: k, store: (b: Builder) => b.storeUint(values.get(k)!, 32) })),
      );
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : 1));

      const { t, root } = table(cell);
      const ours: [bigint, number][] = [];
      walkHashmap(new Slice(t, root), n, (key, v) => ours.push([keyToBigint(key), v.loadUint(32)]));
      expect(ours).toEqual(sorted.map((k) => [k, values.get(k)]));

      const core = Dictionary.loadDirect(Dictionary.Keys.BigUint(n), Dictionary.Values.Uint(32), CoreCell.fromBoc(Buffer.from(cellToBoc(cell)))[0]);
      expect(core.size).toBe(keys.length);
      for (const k of keys) expect(core.get(k)).toBe(values.get(k));
    }
  });

  it('chooses labels like the TON node: same hash as @ton/core serializing the same dictionary', () => {
    const rand = rng(8);
    for (let round = 0; round < 100; round++) {
      const n = [8, 32, 64, 256][round % 4];
      const keys = randomKeys(rand, n, 1 + Math.floor(rand() * 40), round % 3);
      const cell = buildHashmap(
        n,
        keys.map((k) => ({ key: k, store: (b: Builder) => b.storeUint(Number(k & 0xffn), 8) })),
      );
      const core = Dictionary.empty(Dictionary.Keys.BigUint(n), Dictionary.Values.Uint(8));
      for (const k of keys) core.set(k, Number(k & 0xffn));
      expect(cell.hashHex()).toBe(coreBeginCell().storeDictDirect(core).endCell().hash().toString('hex'));
    }
  });

  it('HashmapE and HashmapAugE: empty forms, hex and signed keys, fork extras are sums', () => {
    const empty = new Builder();
    storeHashmapE(empty, 32, []);
    expect(storeHashmapAugE(empty, 32, [], sumAug)).toBe(0);
    const e = empty.endCell();
    expect(e.bits).toBe(1 + 1 + 32);

    const rand = rng(9);
    for (let round = 0; round < 60; round++) {
      const keys = randomKeys(rand, 256, 1 + Math.floor(rand() * 50), round % 3);
      const extras = keys.map(() => Math.floor(rand() * 1000));
      const b = new Builder();
      const total = storeHashmapAugE(
        b,
        256,
        keys.map((k, i) => ({ key: k.toString(16).padStart(64, '0'), extra: extras[i], store: (v: Builder) => v.storeUint(i, 16) })),
        sumAug,
      );
      expect(total).toBe(extras.reduce((x, y) => x + y, 0));
      const { t, root } = table(b.endCell());
      const seen: string[] = [];
      walkHashmapAugE(new Slice(t, root), 256, (key, v) => seen.push(`${keyToHex(key)}:${v.loadUint(16)}`), (s) => s.skip(32));
      expect(seen.sort()).toEqual(keys.map((k, i) => `${k.toString(16).padStart(64, '0')}:${i}`).sort());
      const s = new Slice(t, root);
      s.loadBit();
      expect(checkForkSums(s.loadRefSlice('root'), 256)).toBe(total);
      expect(s.loadUint(32)).toBe(total);
    }

    const workchains = [-1n, 0n, 5n, -239n];
    const b = new Builder();
    storeHashmapE(
      b,
      32,
      workchains.map((wc) => ({ key: wc, store: (v: Builder) => v.storeInt(wc, 32) })),
    );
    const { t, root } = table(b.endCell());
    const got: number[] = [];
    walkHashmapE(new Slice(t, root), 32, (key, v) => {
      expect(v.loadInt(32)).toBe(keyToSigned(key));
      got.push(keyToSigned(key));
    });
    expect(got.sort((x, y) => x - y)).toEqual([-239, -1, 0, 5]);
  });
});
