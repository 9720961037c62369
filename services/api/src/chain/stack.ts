/**
 * runGetMethod stacks (docs/toncenter-v2.md §2.5) to and from @ton/core TupleItems. In: `[type, value]`
 * pairs (`num`/`int`/`number`/`integer`, `tvm.Cell`/`tvm.Slice`/`tvm.Builder` as base64, legacy
 * `cell`/`slice` as `{bytes}`, `tuple`/`list` as `{elements: [tvm.stackEntry…]}`); out: `num` as hex,
 * cells, slices and builders as `cell` with `{bytes, object}`, tuples as `tvm.tuple`, null as an
 * empty `tvm.list`.
 */
import type { Cell, TupleItem } from '@ton/core';
import { type CellBudget, readBoc, REQUEST_BOC } from './cell-limits.js';
import { ChainError } from './chain-error.js';

const INT257_MAX = 2n ** 256n - 1n;
const INT257_MIN = -(2n ** 256n);
/** Deepest nesting taken and answered (C++: 533 `Result stack depth >= N`). */
const MAX_DEPTH = 256;
/** Most items of one tuple: TVM's limit (a longer one is a range check error). */
const MAX_TUPLE_ITEMS = 255;
/** Most entries of a request's stack, nested ones included (the liteserver takes at most 64 KB of them). */
const MAX_STACK_ENTRIES = 1024;

/** What a request's stack may still use: its cells' budget and entries left. */
type StackBudget = { cells: CellBudget; entries: number };

function bad(path: string, what: string): ChainError {
  return new ChainError(422, `invalid value for parameter "stack" at ${path}: ${what}`);
}

function integer(value: unknown, path: string): bigint {
  let v: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  if (typeof value === 'string') {
    const m = /^(-?)(0x[0-9a-fA-F]+|\d+)$/.exec(value.trim());
    if (m) v = m[1] === '-' ? -BigInt(m[2]) : BigInt(m[2]);
  }
  if (v === undefined) throw bad(path, `Invalid number: ${JSON.stringify(value)?.slice(0, 80)}`);
  if (v > INT257_MAX || v < INT257_MIN) throw bad(path, 'number out of the 257-bit range');
  return v;
}

function cellOf(value: unknown, path: string, budget: StackBudget): Cell {
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { bytes?: unknown }).bytes === 'string' ? (value as { bytes: string }).bytes : undefined;
  if (text === undefined || text === '') throw bad(path, 'Empty tvm.Cell: expected a base64 bag of cells');
  const read = readBoc(Buffer.from(text, 'base64'), REQUEST_BOC, budget.cells);
  if ('refused' in read) throw bad(path, `not a base64 bag of cells with one root: ${read.refused}`);
  if (read.roots.length !== 1) throw bad(path, `not a base64 bag of cells with one root: ${read.roots.length} roots`);
  return read.roots[0];
}

/** tvm.list elements as TVM builds lists: nested pairs ending in null. */
function asList(items: TupleItem[]): TupleItem {
  let list: TupleItem = { type: 'null' };
  for (let i = items.length - 1; i >= 0; i--) list = { type: 'tuple', items: [items[i], list] };
  return list;
}

/**
 * The elements of a tuple or list at nesting `depth`. A list is nested pairs, so its i-th element
 * lies i levels deeper than its first: depth is counted as the TVM value nests, not as the JSON does.
 */
function elements(value: unknown, path: string, kind: 'tuple' | 'list', depth: number, budget: StackBudget): TupleItem[] {
  const els = typeof value === 'object' && value !== null ? (value as { elements?: unknown }).elements : undefined;
  if (!Array.isArray(els)) throw bad(path, 'expected {"elements": [...]}');
  if (kind === 'tuple' && els.length > MAX_TUPLE_ITEMS) throw bad(path, `a tuple of ${els.length} elements; TVM tuples hold at most ${MAX_TUPLE_ITEMS}`);
  const deepest = depth + 1 + (kind === 'list' ? els.length - 1 : 0);
  if (deepest >= MAX_DEPTH) throw bad(path, `nested deeper than ${MAX_DEPTH} tuples (each list element one level deeper than the one before)`);
  return els.map((e, i) => entryObject(e, `${path}.elements[${i}]`, depth + 1 + (kind === 'list' ? i : 0), budget));
}

/** Counts an entry against the stack's budget. */
function counted(path: string, budget: StackBudget): void {
  if (--budget.entries < 0) throw bad(path, `more than ${MAX_STACK_ENTRIES} entries in the stack, nested ones included`);
}

/** A `tvm.stackEntry*` object (inside tuples and lists). */
function entryObject(e: unknown, path: string, depth: number, budget: StackBudget): TupleItem {
  counted(path, budget);
  const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  switch (o['@type']) {
    case 'tvm.stackEntryNumber':
      return { type: 'int', value: integer((o.number as { number?: unknown } | undefined)?.number, path) };
    case 'tvm.stackEntryCell':
      return { type: 'cell', cell: cellOf(o.cell, path, budget) };
    case 'tvm.stackEntrySlice':
      return { type: 'slice', cell: cellOf(o.slice, path, budget) };
    case 'tvm.stackEntryTuple':
      return { type: 'tuple', items: elements(o.tuple, path, 'tuple', depth, budget) };
    case 'tvm.stackEntryList':
      return asList(elements(o.list, path, 'list', depth, budget));
    default:
      throw bad(path, `Unsupported stack entry type: ${JSON.stringify(o['@type'] ?? null)?.slice(0, 40)}`);
  }
}

const stackBudget = (): StackBudget => ({ cells: { cells: REQUEST_BOC.cells }, entries: MAX_STACK_ENTRIES });

/**
 * A request's stack (parsed JSON) as TupleItems; 422 naming the entry otherwise. Its BoCs share one
 * message's cells (REQUEST_BOC), its entries, nesting and tuples are bounded as TVM bounds them.
 */
export function readStack(stack: unknown): TupleItem[] {
  if (stack === undefined) return [];
  if (!Array.isArray(stack)) throw bad('the top', 'expected an array of [type, value] entries');
  const budget = stackBudget();
  return stack.map((entry: unknown, i) => {
    const path = `[${i}]`;
    counted(path, budget);
    if (!Array.isArray(entry) || entry.length !== 2) throw bad(path, `Expected 2 elements in stack entry, got: ${Array.isArray(entry) ? entry.length : typeof entry}`);
    const [type, value] = entry as [unknown, unknown];
    switch (type) {
      case 'num':
      case 'int':
      case 'number':
      case 'integer':
        return { type: 'int', value: integer(value, path) };
      case 'tvm.Cell':
      case 'cell':
        return { type: 'cell', cell: cellOf(value, path, budget) };
      case 'tvm.Slice':
      case 'slice':
        return { type: 'slice', cell: cellOf(value, path, budget) };
      case 'tvm.Builder':
      case 'builder':
        return { type: 'builder', cell: cellOf(value, path, budget) };
      case 'tuple':
      case 'tvm.Tuple':
        return { type: 'tuple', items: elements(value, path, 'tuple', 0, budget) };
      case 'list':
      case 'tvm.List':
        return asList(elements(value, path, 'list', 0, budget));
      default:
        throw bad(path, `Unsupported stack entry type: ${JSON.stringify(type)?.slice(0, 40)}`);
    }
  });
}

/** `0x…` hex of an integer, `-0x…` for negatives (tonlib's num format). */
export function hexNumber(v: bigint): string {
  return v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`;
}

/**
 * tonlib's description of a cell, next to its BoC: a tree, a shared cell written out at every path
 * to it. Result stacks are bounded in that unfolded size when read (RESULT_BOC in get-methods.ts).
 */
function cellObject(c: Cell): unknown {
  const len = c.bits.length;
  const whole = len - (len % 8);
  const bytes = Buffer.alloc(Math.ceil(len / 8));
  // Whole bytes at once where the bits start on a byte boundary (subbuffer is null otherwise).
  const aligned = c.bits.subbuffer(0, whole);
  aligned?.copy(bytes);
  for (let i = aligned ? whole : 0; i < len; i++) if (c.bits.at(i)) bytes[i >> 3] |= 0x80 >> (i & 7);
  return { data: { b64: bytes.toString('base64'), len }, refs: c.refs.map(cellObject), special: c.isExotic };
}

export function tvmEntry(item: TupleItem, depth = 0): unknown {
  if (depth >= MAX_DEPTH) throw new ChainError(533, `Result stack depth >= ${MAX_DEPTH}`);
  switch (item.type) {
    case 'int':
      return { '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: item.value.toString() } };
    case 'cell':
    case 'builder':
      return { '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: item.cell.toBoc().toString('base64') } };
    case 'slice':
      return { '@type': 'tvm.stackEntrySlice', slice: { '@type': 'tvm.slice', bytes: item.cell.toBoc().toString('base64') } };
    case 'tuple':
      return { '@type': 'tvm.stackEntryTuple', tuple: { '@type': 'tvm.tuple', elements: item.items.map((i) => tvmEntry(i, depth + 1)) } };
    case 'null':
      return { '@type': 'tvm.stackEntryList', list: { '@type': 'tvm.list', elements: [] } };
    default:
      return { '@type': 'tvm.stackEntryUnsupported' };
  }
}

/** One output entry of v2 runGetMethod. */
export function v2StackEntry(item: TupleItem): [string, unknown] {
  switch (item.type) {
    case 'int':
      return ['num', hexNumber(item.value)];
    case 'nan':
      return ['num', 'NaN'];
    case 'cell':
    case 'slice':
    case 'builder':
      return ['cell', { bytes: item.cell.toBoc().toString('base64'), object: cellObject(item.cell) }];
    case 'tuple':
      return ['tuple', { '@type': 'tvm.tuple', elements: item.items.map((i) => tvmEntry(i, 1)) }];
    case 'null':
      return ['list', { '@type': 'tvm.list', elements: [] }];
    default:
      return ['unsupported', ''];
  }
}

/** v3 legacy `{type, value}` entries (docs/toncenter-v3.md §2.10). */
export function v3StackEntry(item: TupleItem, depth = 0): { type: string; value: unknown } {
  if (depth >= MAX_DEPTH) throw new ChainError(533, `Result stack depth >= ${MAX_DEPTH}`);
  switch (item.type) {
    case 'int':
      return { type: 'num', value: hexNumber(item.value) };
    case 'cell':
    case 'builder':
      return { type: 'cell', value: item.cell.toBoc().toString('base64') };
    case 'slice':
      return { type: 'slice', value: item.cell.toBoc().toString('base64') };
    case 'tuple':
      return { type: 'tuple', value: item.items.map((i) => v3StackEntry(i, depth + 1)) };
    case 'null':
      return { type: 'list', value: [] };
    default:
      return { type: 'unsupported', value: null };
  }
}

/** runGetMethodStd's stack: tvm.stackEntry* objects. */
export function readStackObjects(stack: unknown): TupleItem[] {
  if (stack === undefined) return [];
  if (!Array.isArray(stack)) throw bad('the top', 'expected an array of tvm.stackEntry objects');
  const budget = stackBudget();
  return stack.map((e: unknown, i) => entryObject(e, `[${i}]`, 0, budget));
}
