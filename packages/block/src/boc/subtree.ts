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
 * reachable from `starts`, in canonicalOrder: the bytes depend on the cells alone, never on where
 * they sat in the block they were cut from (the same init_state is served from two blocks).
 */
function subtreeBoc(table: CellTable, root: DetachedCell | undefined, starts: number[]): Uint8Array {
  const order = canonicalOrder(table, root ? starts : [], root ? undefined : starts[0]);
  const offset = root ? 1 : 0;
  const position = new Map<number, number>();
  order.forEach((cell, k) => position.set(cell, k + offset));
  const at = (cell: number) => position.get(cell)!;
  const cells: RawCell[] = [];
  if (root) cells.push({ data: root.data, bits: root.bits, refs: root.children.map(at), special: 0, levelMask: 0 });
  for (const i of order) {
    const off = table.dataOffset[i];
    const bits = table.bitLength[i];
    const refs: number[] = [];
    for (let r = 0; r < table.refCount[i]; r++) refs.push(at(table.refs[i * 4 + r]));
    cells.push({ data: table.bytes.subarray(off, off + ((bits + 7) >> 3)), bits, refs, special: table.special[i], levelMask: table.levelMask[i] });
  }
  return writeBoc(cells, [0]);
}

/**
 * The order @ton/core's serializer gives a cell tree, so a BoC re-serialized by it (or by us from any
 * source) is byte for byte the same: a depth-first walk from the root visiting the last reference
 * first, each cell placed after all of its references, then reversed (the root first, every reference
 * after its parent). Without `rootCell` the root is a detached cell whose references are `rootRefs`;
 * the returned order then leaves it out. Cells are told apart by table index: a BoC a node wrote
 * holds each distinct cell once.
 */
function canonicalOrder(table: CellTable, rootRefs: number[], rootCell?: number): number[] {
  const refsOf = (i: number) => Array.from({ length: table.refCount[i] }, (_, r) => table.refs[i * 4 + r]);
  const placed = new Set<number>();
  const postOrder: number[] = [];
  // Iterative (cell trees can be 1,000 deep): each frame is a cell and the refs left to visit, last first.
  const stack: { cell: number | undefined; pending: number[] }[] = [{ cell: rootCell, pending: rootCell === undefined ? [...rootRefs] : refsOf(rootCell) }];
  if (rootCell !== undefined) placed.add(rootCell);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const ref = top.pending.pop();
    if (ref === undefined) {
      if (top.cell !== undefined) postOrder.push(top.cell);
      stack.pop();
      continue;
    }
    if (placed.has(ref)) continue;
    placed.add(ref);
    stack.push({ cell: ref, pending: refsOf(ref) });
  }
  return postOrder.reverse();
}
