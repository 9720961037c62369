import { hash as oneShotHash } from 'node:crypto';
import type { CellTable } from './cells.js';
import { BocError } from './errors.js';
import { Slice } from './slice.js';
import { type RawCell, writeBoc } from './write-boc.js';

/** Where a sub-structure lives: its own cell, or the rest of a parent cell from a bit and ref offset. */
export type CellPart = { kind: 'cell'; cell: number } | { kind: 'inline'; cell: number; bit: number; ref: number };

/** A new ordinary cell whose children are cells of a table. */
export type DetachedCell = { data: Uint8Array; bits: number; children: number[] };

/** A level-0 cell's identity as its parent's hash needs it. */
export type HashAndDepth = { hash: Uint8Array; depth: number };

function tableChild(table: CellTable, ch: number): HashAndDepth {
  if (table.levelMask[ch] !== 0) throw new BocError('detached cells over cells with a level are not supported');
  return { hash: table.hash(ch), depth: table.depth(ch) };
}

/** Hash and depth of an ordinary level-0 cell from its data and its children's hashes and depths. */
export function hashCell(data: Uint8Array, bits: number, children: HashAndDepth[]): HashAndDepth {
  const c = { data, bits };
  const len = (c.bits + 7) >> 3;
  const buf = new Uint8Array(2 + len + children.length * 34);
  let p = 0;
  buf[p++] = children.length;
  buf[p++] = (c.bits >> 3) * 2 + (c.bits & 7 ? 1 : 0);
  buf.set(c.data.subarray(0, len), p);
  if (c.bits & 7) buf[p + len - 1] = (buf[p + len - 1] & (0xff << (8 - (c.bits & 7)))) | (0x80 >> (c.bits & 7));
  p += len;
  let depth = 0;
  for (const ch of children) {
    buf[p++] = ch.depth >> 8;
    buf[p++] = ch.depth & 0xff;
    if (ch.depth >= depth) depth = ch.depth + 1;
  }
  for (const ch of children) {
    buf.set(ch.hash, p);
    p += 32;
  }
  return { hash: oneShotHash('sha256', buf, 'buffer'), depth };
}

/** Hash and depth of a located part. */
export function partIdentity(table: CellTable, part: CellPart): HashAndDepth {
  if (part.kind === 'cell') return tableChild(table, part.cell);
  const d = detach(table, part);
  return hashCell(d.data, d.bits, d.children.map((ch) => tableChild(table, ch)));
}

/** Cuts the rest of a cell, from a bit and ref offset, into a cell of its own (e.g. an inline message body). */
export function detach(table: CellTable, part: CellPart): DetachedCell {
  if (part.kind === 'cell') throw new Error('detach() expects an inline part');
  const s = new Slice(table, part.cell);
  s.skip(part.bit);
  const bits = s.remainingBits;
  const data = s.loadBits(bits);
  const children: number[] = [];
  for (let r = part.ref; r < table.refCount[part.cell]; r++) children.push(table.refs[part.cell * 4 + r]);
  return { data, bits, children };
}


/** A single-root BoC of a located part and everything below it. */
export function partBoc(table: CellTable, part: CellPart): Uint8Array {
  if (part.kind === 'cell') return subtreeBoc(table, undefined, [part.cell]);
  const d = detach(table, part);
  return subtreeBoc(table, d, d.children);
}

/**
 * Serializes `root` (a detached cell, or the single table cell in `starts`) with every table cell
 * reachable from `starts`. Table order is already topological, so reachable cells sorted by index are too.
 */
function subtreeBoc(table: CellTable, root: DetachedCell | undefined, starts: number[]): Uint8Array {
  const seen = new Set<number>();
  const stack = [...starts];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    for (let r = 0; r < table.refCount[i]; r++) stack.push(table.refs[i * 4 + r]);
  }
  const order = [...seen].sort((a, b) => a - b);
  const offset = root ? 1 : 0;
  const index = new Map<number, number>();
  order.forEach((cell, k) => index.set(cell, k + offset));
  const cells: RawCell[] = [];
  if (root) cells.push({ data: root.data, bits: root.bits, refs: root.children.map((c) => index.get(c)!), special: 0, levelMask: 0 });
  for (const i of order) {
    const off = table.dataOffset[i];
    const bits = table.bitLength[i];
    const refs: number[] = [];
    for (let r = 0; r < table.refCount[i]; r++) refs.push(index.get(table.refs[i * 4 + r])!);
    cells.push({ data: table.bytes.subarray(off, off + ((bits + 7) >> 3)), bits, refs, special: table.special[i], levelMask: table.levelMask[i] });
  }
  return writeBoc(cells, [0]);
}
