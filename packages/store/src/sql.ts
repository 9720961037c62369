import { TonstreamError } from '@tonstream/errors';

/**
 * SQL literals for ClickHouse 18.16, which has no server-side query parameters: every value that
 * reaches SQL goes through one of these, and identifiers through an allow-list pattern.
 */

export class SqlValueError extends TonstreamError {
  readonly code = 'SQL_VALUE_INVALID';
  constructor(message: string) {
    super(message);
  }
}

/** A quoted string literal: backslashes and single quotes escaped, control bytes as escapes. */
export function str(v: string): string {
  return "'" + v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0') + "'";
}

/** An unsigned integer literal (number or bigint or decimal string) within UInt64. */
export function uint(v: number | bigint | string): string {
  const text = typeof v === 'string' ? v : v.toString();
  if (!/^\d{1,20}$/.test(text) || BigInt(text) > 0xffffffffffffffffn) throw new SqlValueError(`not a UInt64: ${JSON.stringify(String(v))}`);
  return text;
}

/** A signed 32-bit integer literal. */
export function int32(v: number): string {
  if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new SqlValueError(`not an Int32: ${v}`);
  return String(v);
}

/** `(a, b, c)` of string literals for IN; empty lists are not valid SQL, so they are refused. */
export function strList(values: readonly string[]): string {
  if (values.length === 0) throw new SqlValueError('empty IN list');
  return '(' + values.map(str).join(', ') + ')';
}

/** `['a', 'b']`: an array literal of strings (for has/hasAny); like strList, never empty. */
export function strArray(values: readonly string[]): string {
  if (values.length === 0) throw new SqlValueError('empty array literal');
  return '[' + values.map(str).join(', ') + ']';
}

/** `(('a', 'b'), ...)`: string pairs for `(x, y) IN ...`; like strList, never empty. */
export function strPairList(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) throw new SqlValueError('empty pair list: the caller must skip the condition');
  return `(${pairs.map(([a, b]) => `(${str(a)}, ${str(b)})`).join(', ')})`;
}

/** `(('acc', lt), ...)`: distinct (account, lt) keys for `(account, lt) IN ...`; like strList, never empty. */
export function accountLtList(keys: readonly { account: string; lt: string }[]): string {
  if (keys.length === 0) throw new SqlValueError('empty key list: the caller must skip the condition');
  return `(${[...new Set(keys.map((k) => `(${str(k.account)}, ${uint(k.lt)})`))].join(', ')})`;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A database or table name: letters, digits and underscores only. */
export function ident(name: string): string {
  if (!IDENT.test(name)) throw new SqlValueError(`not a valid identifier: ${JSON.stringify(name)}`);
  return name;
}
