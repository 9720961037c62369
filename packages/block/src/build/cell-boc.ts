import type { CellTable } from '../boc/cells.js';
import { parseBoc } from '../boc/parse-boc.js';
import { type RawCell, writeBoc } from '../boc/write-boc.js';
import { Cell, type CellType } from './cell.js';

/** Cells already converted from each table, by index, so shared subtrees become shared `Cell`s. */
const converted = new WeakMap<CellTable, (Cell | undefined)[]>();

/** The subtree of cell `index` of a parsed table as `Cell`s; memoized per table. */
export function cellFromTable(table: CellTable, index: number): Cell {
  let memo = converted.get(table);
  if (!memo) {
    memo = new Array<Cell | undefined>(table.count);
    converted.set(table, memo);
  }
  // Children first, with an explicit stack: a table may hold long chains of cells.
  const stack = [index];
  while (stack.length > 0) {
    const i = stack[stack.length - 1];
    if (memo[i]) {
      stack.pop();
      continue;
    }
    const n = table.refCount[i];
    let pending = false;
    for (let r = 0; r < n; r++) {
      const c = table.refs[i * 4 + r];
      if (!memo[c]) {
        stack.push(c);
        pending = true;
      }
    }
    if (pending) continue;
    stack.pop();
    const refs: Cell[] = [];
    for (let r = 0; r < n; r++) refs.push(memo[table.refs[i * 4 + r]]!);
    const off = table.dataOffset[i];
    const bits = table.bitLength[i];
    memo[i] = new Cell(table.bytes.subarray(off, off + ((bits + 7) >> 3)), bits, refs, table.special[i] as CellType);
  }
  return memo[index]!;
}

/** The first root (or root `root`) of a bag of cells. */
export function cellFromBoc(bytes: Uint8Array, root = 0): Cell {
  const table = parseBoc(bytes);
  return cellFromTable(table, table.roots[root]);
}

/** Serializes the trees of `roots` as one BoC (CRC32-C, no index); identical cells are stored once. */
export function cellToBoc(roots: Cell | Cell[]): Uint8Array {
  return serializeCells(Array.isArray(roots) ? roots : [roots]).boc;
}

/**
 * Orders the distinct cells (by representation hash) of the trees so that every reference points
 * forward, and serializes them. `order[i]` is the cell stored at index `i`, so a table parsed from
 * `boc` has the same indices.
 */
export function serializeCells(roots: Cell[]): { boc: Uint8Array; order: Cell[]; rootIndices: number[] } {
  const seen = new Map<string, Cell>();
  const postorder: Cell[] = [];
  // Reverse postorder of a depth-first walk is a topological order. Walk the roots last-to-first so
  // that the first root comes first.
  for (let k = roots.length - 1; k >= 0; k--) {
    const stack: { cell: Cell; next: number }[] = [];
    const enter = (c: Cell) => {
      if (seen.has(c.hashHex())) return;
      seen.set(c.hashHex(), c);
      stack.push({ cell: c, next: c.refs.length - 1 });
    };
    enter(roots[k]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next >= 0) enter(top.cell.refs[top.next--]);
      else postorder.push(stack.pop()!.cell);
    }
  }
  const order = postorder.reverse();
  const index = new Map<string, number>();
  order.forEach((c, i) => index.set(c.hashHex(), i));
  const raw: RawCell[] = order.map((c) => ({
    data: c.data,
    bits: c.bits,
    refs: c.refs.map((r) => index.get(r.hashHex())!),
    special: c.type,
    levelMask: c.levelMask,
  }));
  const rootIndices = roots.map((r) => index.get(r.hashHex())!);
  return { boc: writeBoc(raw, rootIndices), order, rootIndices };
}
