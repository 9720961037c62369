import type { Cell, Slice } from '@ton/core';
import { type Codec, type PrintBudget, spendCell, type TlbJson, type TlbObject, TlbMismatch, type ValueOf } from './codec.js';

/**
 * The TL-B building blocks the message layouts are written with. Each mirrors one form of the
 * scheme language (ton-indexer `ton-marker/src/schemes/schemes.tlb`) and prints it as ton-marker's
 * JSON printer does: `uint64` -> "5", `bits256` -> "AB..", `Bool` -> true, `Cell` -> base64 BoC.
 */

/** `uint n` / `## n`, n <= 48, as a number. */
export function uint(bits: number): Codec<number> {
  return { read: (s) => s.loadUint(bits), print: (s) => String(s.loadUint(bits)) };
}

/** `uint n` of any width (query ids, 256-bit indexes), as a bigint. */
export function bigUint(bits: number): Codec<bigint> {
  return { read: (s) => s.loadUintBig(bits), print: (s) => s.loadUintBig(bits).toString() };
}

/** `int n`, n <= 48, as a number. */
export function int(bits: number): Codec<number> {
  return { read: (s) => s.loadInt(bits), print: (s) => String(s.loadInt(bits)) };
}

/** `int n` of any width, as a bigint. */
export function bigInt(bits: number): Codec<bigint> {
  return { read: (s) => s.loadIntBig(bits), print: (s) => s.loadIntBig(bits).toString() };
}

/** `bits n` (whole bytes): a Buffer; printed as upper-case hex. */
export function bits(n: number): Codec<Buffer> {
  if (n % 8 !== 0) throw new Error(`bits(${n}): only whole bytes`);
  return { read: (s) => s.loadBuffer(n / 8), print: (s) => s.loadBits(n).toString() };
}

/** `Bool` (`false$0 | true$1`). */
export const bool: Codec<boolean> = { read: (s) => s.loadBit(), print: (s) => s.loadBit() };

/** Bits of the length field of `VarUInteger n` (`len:(#< n)`). */
const lengthBits = (n: number) => Math.ceil(Math.log2(n));

/** `VarUInteger n`: the value; printed as the `var_uint` constructor with the stored length. */
export function varUint(n: number): Codec<bigint> {
  const lenBits = lengthBits(n);
  return {
    read: (s) => s.loadVarUintBig(lenBits),
    print(s) {
      const len = s.loadUint(lenBits);
      const value = len === 0 ? 0n : s.loadUintBig(len * 8);
      return { '@type': 'var_uint', len: String(len), value: value.toString() };
    },
  };
}

/** Base64 of a cell as ton-marker serializes it (a standard BoC, no index, no CRC). */
export function bocBase64(cell: Cell): string {
  return cell.toBoc({ idx: false, crc32: false }).toString('base64');
}

/** A cell printed as its BoC, remembered for the nested decode. */
function printCell(cell: Cell, budget: PrintBudget): string {
  const text = bocBase64(cell);
  budget.printedCells?.set(text, cell);
  return text;
}

/** The rest of the slice (bits and refs) as a cell, consuming it. */
function takeRest(s: Slice): Cell {
  const cell = s.asCell();
  s.skip(s.remainingBits);
  while (s.remainingRefs > 0) s.loadRef();
  return cell;
}

/** `Cell` / `Any` inline: everything left in the slice. */
export const anyCell: Codec<Cell> = { read: takeRest, print: (s, budget) => printCell(takeRest(s), budget) };

/** `^Cell`: a referenced cell, whole. */
export const refCell: Codec<Cell> = { read: (s) => s.loadRef(), print: (s, budget) => printCell(s.loadRef(), budget) };

/** `^X`: X read from a referenced cell (what is left in that cell is not checked, as ton-marker). */
export function ref<T>(inner: Codec<T>): Codec<T> {
  return {
    read: (s) => inner.read(s.loadRef().beginParse()),
    print(s, budget) {
      spendCell(budget);
      return inner.print(s.loadRef().beginParse(), budget);
    },
  };
}

/** `Maybe X` (`nothing_from_maybe$0 | something_from_maybe$1 value:X`): X or null. */
export function maybe<T>(inner: Codec<T>): Codec<T | null> {
  return {
    read: (s) => (s.loadBit() ? inner.read(s) : null),
    print: (s, budget): TlbJson => (s.loadBit() ? { '@type': 'something_from_maybe', value: inner.print(s, budget) } : { '@type': 'nothing_from_maybe' }),
  };
}

export type EitherValue<L, R> = { side: 'left'; value: L } | { side: 'right'; value: R };

/** `Either X Y` (`first_from_either$0 value:X | second_from_either$1 value:Y`). */
export function either<L, R>(left: Codec<L>, right: Codec<R>): Codec<EitherValue<L, R>> {
  return {
    read: (s) => (s.loadBit() ? { side: 'right', value: right.read(s) } : { side: 'left', value: left.read(s) }),
    print: (s, budget): TlbJson =>
      s.loadBit() ? { '@type': 'second_from_either', value: right.print(s, budget) } : { '@type': 'first_from_either', value: left.print(s, budget) },
  };
}

/** `(Either Cell ^Cell)` (forward payloads): the payload cell, whichever side it is on. */
export const eitherCell: Codec<Cell> = (() => {
  const printed = either(anyCell, refCell);
  return { read: (s) => (s.loadBit() ? s.loadRef() : takeRest(s)), print: printed.print };
})();

/** Reads all bytes of a snake: the slice's bits, then each single ref in turn. */
function snakeBytes(s: Slice, budget: PrintBudget | null): Buffer {
  const parts: Buffer[] = [];
  let cur = s;
  while (true) {
    const whole = Math.floor(cur.remainingBits / 8);
    parts.push(cur.loadBuffer(whole));
    const tail = cur.remainingBits;
    // A partial last byte is kept, left-aligned (as ton-marker's SnakeString does).
    if (tail > 0) parts.push(Buffer.from([cur.loadUint(tail) << (8 - tail)]));
    if (cur.remainingRefs > 1) throw new TlbMismatch('snake cell has more than one reference');
    if (cur.remainingRefs === 0) return Buffer.concat(parts);
    if (budget) spendCell(budget);
    cur = cur.loadRef().beginParse();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function snakeString(s: Slice, budget: PrintBudget | null): string {
  try {
    return utf8.decode(snakeBytes(s, budget));
  } catch (err) {
    if (err instanceof TypeError) throw new TlbMismatch('invalid utf-8 string');
    throw err;
  }
}

/** `SnakeString`: UTF-8 text over the slice and a chain of single refs (comments). */
export const snakeText: Codec<string> = { read: (s) => snakeString(s, null), print: (s, budget) => snakeString(s, budget) };

export type Fields = Record<string, Codec<unknown>>;
export type FieldValues<F extends Fields> = { [K in keyof F]: ValueOf<F[K]> };

function readFields<F extends Fields>(fields: F, s: Slice): FieldValues<F> {
  const out: Record<string, unknown> = {};
  for (const [name, codec] of Object.entries(fields)) out[name] = codec.read(s);
  return out as FieldValues<F>;
}

function printFields(fields: Fields, s: Slice, budget: PrintBudget, into: TlbObject): TlbObject {
  for (const [name, codec] of Object.entries(fields)) into[name] = codec.print(s, budget);
  return into;
}

/** A constructor tag: `$` + binary digits, `#` + hex digits, or `$_` / `#_` for none. */
export type Tag = { bits: number; value: number };

export function parseTag(text: string): Tag {
  const body = text.slice(1);
  if (body === '_') return { bits: 0, value: 0 };
  if (text[0] === '$' && /^[01]{1,32}$/.test(body)) return { bits: body.length, value: Number.parseInt(body, 2) };
  if (text[0] === '#' && /^[0-9a-f]{1,8}$/.test(body)) return { bits: body.length * 4, value: Number.parseInt(body, 16) };
  throw new Error(`bad TL-B tag ${text}`);
}

/** The tag's bits are next in the slice. */
export function hasTag(s: Slice, tag: Tag): boolean {
  return tag.bits === 0 || (s.remainingBits >= tag.bits && s.preloadUint(tag.bits) === tag.value);
}

/** A named constructor's typed value: its name as `type`, then its fields. */
export type ConsValue<N extends string, F extends Fields> = { type: N } & FieldValues<F>;

/** A codec that starts with a constructor tag, so a sum type can pick it by that tag. */
export type Tagged<T> = Codec<T> & { name: string; tag: Tag };

export type Constructor<N extends string, F extends Fields> = Tagged<ConsValue<N, F>> & { name: N; fields: F };

/** `name#tag field:Type ...` (or `name$bits ...`): tag checked and consumed, fields in order. */
export function cons<N extends string, F extends Fields>(name: N, tagText: string, fields: F): Constructor<N, F> {
  if (Object.hasOwn(fields, 'type')) throw new Error(`${name}: a field named "type" would hide the constructor name`);
  const tag = parseTag(tagText);
  const skipTag = (s: Slice) => {
    if (!hasTag(s, tag)) throw new TlbMismatch(`expected ${name}${tagText}`);
    s.skip(tag.bits);
  };
  return {
    name,
    tag,
    fields,
    read(s) {
      skipTag(s);
      return { type: name, ...readFields(fields, s) };
    },
    print(s, budget) {
      skipTag(s);
      return printFields(fields, s, budget, { '@type': name });
    },
  };
}

/** `_ field:Type ... = T` (an anonymous constructor): printed without `@type`. */
export function anon<F extends Fields>(fields: F): Codec<FieldValues<F>> {
  return { read: (s) => readFields(fields, s), print: (s, budget) => printFields(fields, s, budget, {}) };
}

/** A sum type: the constructor whose tag comes next (the first such, in scheme order). */
export function oneOf<C extends Tagged<unknown>[]>(...alternatives: C): Codec<ValueOf<C[number]>> {
  const pick = (s: Slice) => {
    const c = alternatives.find((a) => hasTag(s, a.tag));
    if (!c) throw new TlbMismatch(`none of ${alternatives.map((a) => a.name).join(', ')}`);
    return c;
  };
  return {
    read: (s) => pick(s).read(s) as ValueOf<C[number]>,
    print: (s, budget): TlbJson => pick(s).print(s, budget),
  };
}
