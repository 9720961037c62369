import { Slice } from '../boc/slice.js';

/** Key bits of a dictionary leaf, most significant first. */
export type DictKey = Uint8Array;

export type LeafReader = (key: DictKey, value: Slice) => void;

/**
 * Walks `Hashmap n X` or `HashmapAug n X Y` whose root edge starts at `s`, calling `onLeaf` for every
 * leaf in key order with the slice positioned at the value. `skipExtra` reads past Y in leaves of an
 * augmented dictionary (fork extras are not read).
 *
 *   hm_edge#_ label:(HmLabel ~l n) {n = (~m) + l} node:(HashmapNode m X) = Hashmap n X;
 *   hmn_leaf#_ value:X = HashmapNode 0 X;  hmn_fork#_ left:^(Hashmap n X) right:^(Hashmap n X) = HashmapNode (n + 1) X;
 *   ahmn_leaf#_ extra:Y value:X = HashmapAugNode 0 X Y;  ahmn_fork#_ left:^… right:^… extra:Y = HashmapAugNode (n + 1) X Y;
 */
export function walkHashmap(s: Slice, n: number, onLeaf: LeafReader, skipExtra?: (s: Slice) => void): void {
  walk(s, n, new Uint8Array(n), 0, onLeaf, skipExtra);
}

/** `HashmapE n X`: `hme_empty$0` or `hme_root$1 root:^(Hashmap n X)`. */
export function walkHashmapE(s: Slice, n: number, onLeaf: LeafReader): void {
  const root = s.loadMaybeRef();
  if (root !== undefined) walkHashmap(new Slice(s.cells, root, s.path), n, onLeaf);
}

/** `HashmapAugE n X Y`: `ahme_empty$0 extra:Y` or `ahme_root$1 root:^(HashmapAug n X Y) extra:Y`; the root extra is skipped. */
export function walkHashmapAugE(s: Slice, n: number, onLeaf: LeafReader, skipExtra: (s: Slice) => void): void {
  const root = s.loadMaybeRef();
  if (root !== undefined) walkHashmap(new Slice(s.cells, root, s.path), n, onLeaf, skipExtra);
  skipExtra(s);
}

function walk(s: Slice, n: number, key: Uint8Array, depth: number, onLeaf: LeafReader, skipExtra?: (s: Slice) => void): void {
  const l = readLabel(s, n, key, depth);
  const m = n - l;
  depth += l;
  if (m === 0) {
    if (skipExtra) skipExtra(s);
    onLeaf(key.slice(), s);
    return;
  }
  const left = s.loadRef();
  const right = s.loadRef();
  key[depth] = 0;
  walk(new Slice(s.cells, left, s.path), m - 1, key, depth + 1, onLeaf, skipExtra);
  key[depth] = 1;
  walk(new Slice(s.cells, right, s.path), m - 1, key, depth + 1, onLeaf, skipExtra);
}

/** HmLabel ~l n: hml_short$0 (Unary ~n) bits, hml_long$10 (#<= m) bits, hml_same$11 v:Bit (#<= m). */
function readLabel(s: Slice, m: number, key: Uint8Array, depth: number): number {
  let len: number;
  const kind = s.loadBit() ? (s.loadBit() ? 'same' : 'long') : 'short';
  if (kind === 'short') {
    len = 0;
    while (s.loadBit()) len++;
    if (len > m) s.fail(`label of ${len} bits exceeds ${m}`);
    loadKeyBits(s, key, depth, len);
  } else if (kind === 'long') {
    len = s.loadUint(lenBits(m));
    if (len > m) s.fail(`label of ${len} bits exceeds ${m}`);
    loadKeyBits(s, key, depth, len);
  } else {
    const v = s.loadBit() ? 1 : 0;
    len = s.loadUint(lenBits(m));
    if (len > m) s.fail(`label of ${len} bits exceeds ${m}`);
    key.fill(v, depth, depth + len);
  }
  return len;
}

/** Reads `len` label bits into `key` from `at`, 32 at a time (leaf labels of 256-bit keys run to ~240 bits). */
function loadKeyBits(s: Slice, key: Uint8Array, at: number, len: number): void {
  while (len > 0) {
    const n = len > 32 ? 32 : len;
    const v = s.loadUint(n);
    for (let b = n - 1; b >= 0; b--) key[at++] = (v >>> b) & 1;
    len -= n;
  }
}

/** Bits of `#<= m`: ceil(log2(m + 1)). */
function lenBits(m: number): number {
  return 32 - Math.clz32(m);
}

export function keyToNumber(key: DictKey): number {
  let v = 0;
  for (let k = 0; k < key.length; k++) v = v * 2 + key[k];
  return v;
}

export function keyToSigned(key: DictKey): number {
  const v = keyToNumber(key);
  return key[0] ? v - 2 ** key.length : v;
}

export function keyToBigint(key: DictKey): bigint {
  let v = 0n;
  for (let k = 0; k < key.length; k++) v = (v << 1n) | BigInt(key[k]);
  return v;
}

export function keyToHex(key: DictKey): string {
  let out = '';
  for (let k = 0; k < key.length; k += 4) {
    out += ((key[k] << 3) | (key[k + 1] << 2) | (key[k + 2] << 1) | key[k + 3]).toString(16);
  }
  return out;
}
