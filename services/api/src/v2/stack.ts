/**
 * runGetMethod stacks (toncenter-v2.md §2.5) to and from @ton/core TupleItems. In: `[type, value]`
 * pairs (`num`/`int`/`number`/`integer`, `tvm.Cell`/`tvm.Slice`/`tvm.Builder` as base64, legacy
 * `cell`/`slice` as `{bytes}`, `tuple`/`list` as `{elements: [tvm.stackEntry…]}`); out: `num` as hex,
 * cells, slices and builders as `cell` with `{bytes, object}`, tuples as `tvm.tuple`, null as an
 * empty `tvm.list`.
 */
import { Cell, type TupleItem } from '@ton/core';
import { V2Error } from './envelope.js';

const INT257_MAX = 2n ** 256n - 1n;
const INT257_MIN = -(2n ** 256n);

function bad(path: string, what: string): V2Error {
  return new V2Error(422, `invalid value for parameter "stack" at ${path}: ${what}`);
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

function cellOf(value: unknown, path: string): Cell {
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null && typeof (value as { bytes?: unknown }).bytes === 'string' ? (value as { bytes: string }).bytes : undefined;
  if (text === undefined || text === '') throw bad(path, 'Empty tvm.Cell: expected a base64 bag of cells');
  try {
    const cells = Cell.fromBoc(Buffer.from(text, 'base64'));
    if (cells.length !== 1) throw new Error('not one root');
    return cells[0];
  } catch {
    throw bad(path, 'not a base64 bag of cells with one root');
  }
}

/** tvm.list elements as TVM builds lists: nested pairs ending in null. */
function asList(items: TupleItem[]): TupleItem {
  let list: TupleItem = { type: 'null' };
  for (let i = items.length - 1; i >= 0; i--) list = { type: 'tuple', items: [items[i], list] };
  return list;
}

function elements(value: unknown, path: string): TupleItem[] {
  const els = typeof value === 'object' && value !== null ? (value as { elements?: unknown }).elements : undefined;
  if (!Array.isArray(els)) throw bad(path, 'expected {"elements": [...]}');
  return els.map((e, i) => entryObject(e, `${path}.elements[${i}]`));
}

/** A `tvm.stackEntry*` object (inside tuples and lists). */
function entryObject(e: unknown, path: string): TupleItem {
  const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  switch (o['@type']) {
    case 'tvm.stackEntryNumber':
      return { type: 'int', value: integer((o.number as { number?: unknown } | undefined)?.number, path) };
    case 'tvm.stackEntryCell':
      return { type: 'cell', cell: cellOf(o.cell, path) };
    case 'tvm.stackEntrySlice':
      return { type: 'slice', cell: cellOf(o.slice, path) };
    case 'tvm.stackEntryTuple':
      return { type: 'tuple', items: elements(o.tuple, path) };
    case 'tvm.stackEntryList':
      return asList(elements(o.list, path));
    default:
      throw bad(path, `Unsupported stack entry type: ${JSON.stringify(o['@type'] ?? null)}`);
  }
}

/** A request's stack (parsed JSON) as TupleItems; 422 naming the entry otherwise. */
export function readStack(stack: unknown): TupleItem[] {
  if (stack === undefined) return [];
  if (!Array.isArray(stack)) throw bad('the top', 'expected an array of [type, value] entries');
  return stack.map((entry: unknown, i) => {
    const path = `[${i}]`;
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
        return { type: 'cell', cell: cellOf(value, path) };
      case 'tvm.Slice':
      case 'slice':
        return { type: 'slice', cell: cellOf(value, path) };
      case 'tvm.Builder':
      case 'builder':
        return { type: 'builder', cell: cellOf(value, path) };
      case 'tuple':
      case 'tvm.Tuple':
        return { type: 'tuple', items: elements(value, path) };
      case 'list':
      case 'tvm.List':
        return asList(elements(value, path));
      default:
        throw bad(path, `Unsupported stack entry type: ${JSON.stringify(type)?.slice(0, 40)}`);
    }
  });
}

/** `0x…` hex of an integer, `-0x…` for negatives (tonlib's num format). */
export function hexNumber(v: bigint): string {
  return v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`;
}

/** tonlib's description of a cell, next to its BoC. */
function cellObject(c: Cell): unknown {
  const bytes = Buffer.alloc(Math.ceil(c.bits.length / 8));
  for (let i = 0; i < c.bits.length; i++) if (c.bits.at(i)) bytes[i >> 3] |= 0x80 >> (i & 7);
  return { data: { b64: bytes.toString('base64'), len: c.bits.length }, refs: c.refs.map(cellObject), special: c.isExotic };
}

/** Deepest nesting answered (C++: 533 `Result stack depth >= N`). */
const MAX_DEPTH = 256;

export function tvmEntry(item: TupleItem, depth = 0): unknown {
  if (depth >= MAX_DEPTH) throw new V2Error(533, `Result stack depth >= ${MAX_DEPTH}`);
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

/** v3 legacy `{type, value}` entries (toncenter-v3.md §2.10). */
export function v3StackEntry(item: TupleItem, depth = 0): { type: string; value: unknown } {
  if (depth >= MAX_DEPTH) throw new V2Error(533, `Result stack depth >= ${MAX_DEPTH}`);
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
  return stack.map((e: unknown, i) => entryObject(e, `[${i}]`));
}
