import type { Cell, Slice } from '@ton/core';
import { TonstreamError } from '@tonstream/errors';

/**
 * A TL-B value as toncenter's decoder (ton-marker) prints it: a constructor is an object whose
 * `@type` is the constructor's name (no `@type` for an anonymous `_` constructor), its fields follow
 * in scheme order; integers of any width are decimal strings, `bits n` upper-case hex, `Bool` a JSON
 * boolean, a `Cell` / `Any` the base64 BoC of that cell.
 */
export type TlbJson = string | boolean | TlbObject;
export type TlbObject = { [field: string]: TlbJson };

/**
 * State of one print: `cells` bounds its work, so a small hostile BoC cannot expand into a huge
 * answer; `printedCells` keeps each cell printed as a BoC by its base64, so the nested decode of
 * that string reuses the cell instead of parsing the BoC again.
 */
export type PrintBudget = { cells: number; printedCells?: Map<string, Cell> };

/**
 * One TL-B type, read two ways from the same bits: `read` as a typed value for code (the action
 * classifier, token derivations), `print` as ton-marker's JSON (`/api/v3/decode`). Both throw on a
 * mismatch (`TlbMismatch` or @ton/core's reader errors); callers catch, a body never throws out of
 * the package.
 */
export type Codec<T> = {
  read(s: Slice): T;
  print(s: Slice, budget: PrintBudget): TlbJson;
};

/** The value type a codec reads. */
export type ValueOf<C> = C extends Codec<infer T> ? T : never;

/** The bits do not match the scheme (a wrong tag, a failed constraint, data where none may be). */
export class TlbMismatch extends TonstreamError {
  readonly code = 'TLB_MISMATCH';
  constructor(message: string) {
    super(message);
  }
}

/** A print ran out of its budget; the message is the one toncenter answers for the same case. */
export class DecodeLimitExceeded extends TonstreamError {
  readonly code = 'DECODE_LIMIT_EXCEEDED';
  constructor(message: string) {
    super(message);
  }
}

/** Counts one cell load against the budget. */
export function spendCell(budget: PrintBudget): void {
  if (--budget.cells < 0) throw new DecodeLimitExceeded('decode limit - boc cell expansion limit exceeded');
}
