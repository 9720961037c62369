import { Builder } from './builder.js';
import type { Cell } from './cell.js';
import { BuildError } from './errors.js';

/** A key of `n` bits: an unsigned bigint (a negative one is taken as n-bit two's complement) or n/4 hex digits. */
export type DictKeyInput = bigint | string;

/** A leaf: its key and a writer for its value, which goes into the leaf cell after the label (and extra). */
export type DictEntry = { key: DictKeyInput; store: (b: Builder) => void };

/** A leaf of an augmented dictionary, with its extra. */
export type AugDictEntry<E> = DictEntry & { extra: E };

/** How the extras of an augmented dictionary are written and combined: a fork's extra is `combine(left, right)`. */
export type Augmentation<E> = { store: (b: Builder, extra: E) => void; combine: (left: E, right: E) => E; empty: E };

type Leaf<E> = { bits: Uint8Array; entry: DictEntry; extra?: E };

/**
 * hm_edge#_ label:(HmLabel ~l n) {n = (~m) + l} node:(HashmapNode m X) = Hashmap n X;
 * Writes the root edge of a non-empty `Hashmap n X` into `b` (where a dictionary is stored inline).
 */
export function storeHashmap(b: Builder, n: number, entries: DictEntry[]): void {
  const leaves = prepare(n, entries);
  if (leaves.length === 0) throw new BuildError('Hashmap n X cannot be empty; use HashmapE');
  storeEdge(b, leaves, 0, leaves.length, 0, n, undefined);
}

export function buildHashmap(n: number, entries: DictEntry[]): Cell {
  const b = new Builder();
  storeHashmap(b, n, entries);
  return b.endCell();
}

/** hme_empty$0 | hme_root$1 root:^(Hashmap n X) = HashmapE n X; */
export function storeHashmapE(b: Builder, n: number, entries: DictEntry[]): void {
  b.storeMaybeRef(entries.length ? buildHashmap(n, entries) : null);
}

/**
 * ahm_edge#_ label:(HmLabel ~l n) {n = (~m) + l} node:(HashmapAugNode m X Y) = HashmapAug n X Y;
 * ahmn_leaf#_ extra:Y value:X = HashmapAugNode 0 X Y;
 * ahmn_fork#_ left:^(HashmapAug n X Y) right:^(HashmapAug n X Y) extra:Y = HashmapAugNode (n + 1) X Y;
 * Writes the root edge of a non-empty augmented dictionary into `b`; returns the root's extra.
 */
export function storeHashmapAug<E>(b: Builder, n: number, entries: AugDictEntry<E>[], aug: Augmentation<E>): E {
  const leaves = prepare(n, entries);
  if (leaves.length === 0) throw new BuildError('HashmapAug n X Y cannot be empty; use HashmapAugE');
  return storeEdge(b, leaves, 0, leaves.length, 0, n, aug)!;
}

export function buildHashmapAug<E>(n: number, entries: AugDictEntry<E>[], aug: Augmentation<E>): { cell: Cell; extra: E } {
  const b = new Builder();
  const extra = storeHashmapAug(b, n, entries, aug);
  return { cell: b.endCell(), extra };
}

/** ahme_empty$0 extra:Y | ahme_root$1 root:^(HashmapAug n X Y) extra:Y = HashmapAugE n X Y; returns the extra. */
export function storeHashmapAugE<E>(b: Builder, n: number, entries: AugDictEntry<E>[], aug: Augmentation<E>): E {
  if (entries.length === 0) {
    aug.store(b.storeBit(0), aug.empty);
    return aug.empty;
  }
  const { cell, extra } = buildHashmapAug(n, entries, aug);
  aug.store(b.storeBit(1).storeRef(cell), extra);
  return extra;
}

/** Keys as bit arrays, sorted; duplicate keys are an error. */
function prepare<E>(n: number, entries: (DictEntry | AugDictEntry<E>)[]): Leaf<E>[] {
  if (!Number.isInteger(n) || n < 1 || n > 1023) throw new BuildError(`dictionary key length ${n} is not 1..1023`);
  const keyed = entries.map((entry) => ({ value: keyValue(entry.key, n), entry }));
  keyed.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return keyed.map(({ value, entry }, i) => {
    if (i > 0 && keyed[i - 1].value === value) throw new BuildError(`duplicate dictionary key ${entry.key}`);
    const bits = new Uint8Array(n);
    for (let k = 0; k < n; k++) bits[k] = Number((value >> BigInt(n - 1 - k)) & 1n);
    return 'extra' in entry ? { bits, entry, extra: entry.extra } : { bits, entry };
  });
}

function keyValue(key: DictKeyInput, n: number): bigint {
  let v: bigint;
  if (typeof key === 'string') {
    if (!/^[0-9a-fA-F]+$/.test(key) || key.length * 4 !== n) throw new BuildError(`hex key "${key}" is not ${n / 4} hex digits`);
    v = BigInt(`0x${key}`);
  } else {
    v = key < 0n ? key + (1n << BigInt(n)) : key;
  }
  if (v < 0n || v >= 1n << BigInt(n)) throw new BuildError(`dictionary key ${key} does not fit in ${n} bits`);
  return v;
}

/** Writes the edge over leaves [lo, hi), which share their first `pos` key bits; `m` key bits remain. Returns the extra. */
function storeEdge<E>(b: Builder, leaves: Leaf<E>[], lo: number, hi: number, pos: number, m: number, aug: Augmentation<E> | undefined): E | undefined {
  const first = leaves[lo].bits;
  const last = leaves[hi - 1].bits;
  let l = 0;
  if (hi - lo === 1) l = m;
  else while (first[pos + l] === last[pos + l]) l++;
  storeLabel(b, first, pos, l, m);
  pos += l;
  m -= l;
  if (m === 0) {
    const leaf = leaves[lo];
    if (aug) aug.store(b, leaf.extra as E);
    leaf.entry.store(b);
    return leaf.extra;
  }
  let split = lo;
  while (leaves[split].bits[pos] === 0) split++;
  const left = new Builder();
  const right = new Builder();
  const le = storeEdge(left, leaves, lo, split, pos + 1, m - 1, aug);
  const re = storeEdge(right, leaves, split, hi, pos + 1, m - 1, aug);
  b.storeRef(left.endCell()).storeRef(right.endCell());
  if (!aug) return undefined;
  const extra = aug.combine(le as E, re as E);
  aug.store(b, extra);
  return extra;
}

/**
 * HmLabel ~l m: hml_short$0 len:(Unary ~n) s:(n * Bit), hml_long$10 n:(#<= m) s:(n * Bit), hml_same$11 v:Bit n:(#<= m).
 * The shortest of the three, ties broken as the TON node does: same over long over short for a
 * constant label, long over short otherwise, and short whenever it is no longer.
 */
function storeLabel(b: Builder, key: Uint8Array, from: number, len: number, m: number): void {
  const k = 32 - Math.clz32(m);
  let same = len > 0;
  for (let i = 1; i < len && same; i++) same = key[from + i] === key[from];
  if (same && len > 1 && k < 2 * len - 1) {
    b.storeUint(0b11, 2).storeBit(key[from]).storeUint(len, k);
    return;
  }
  if (k < len) b.storeUint(0b10, 2).storeUint(len, k);
  else {
    b.storeBit(0);
    for (let i = 0; i < len; i++) b.storeBit(1);
    b.storeBit(0);
  }
  for (let i = 0; i < len; i++) b.storeBit(key[from + i]);
}
