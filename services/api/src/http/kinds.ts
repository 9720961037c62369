import { parseAddress, rawAddress } from '../chain/address.js';

/**
 * The value types of v3 query parameters (docs/toncenter-v3.md §1.4), each a parser from the query text
 * to a typed, normalised value plus its OpenAPI schema. `parse` returns undefined for an invalid
 * value; the caller names the parameter in the error.
 */
export type Kind<T> = {
  /** What is accepted, for error messages. */
  accepts: string;
  schema: JsonSchema;
  parse(text: string): T | undefined;
};

/** The subset of JSON Schema (OpenAPI 3.0) the declarations use. */
export type JsonSchema = {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  format?: string;
  pattern?: string;
  enum?: readonly (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  example?: unknown;
  description?: string;
  nullable?: boolean;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  $ref?: string;
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** A signed decimal as Go's strconv.ParseInt reads it (optional sign, digits only). */
function decimal(text: string): bigint | undefined {
  return /^[+-]?\d{1,20}$/.test(text) ? BigInt(text) : undefined;
}

export const int32: Kind<number> = {
  accepts: 'a signed 32-bit integer',
  schema: { type: 'integer', format: 'int32' },
  parse(text) {
    const v = decimal(text);
    return v !== undefined && v >= -(2n ** 31n) && v < 2n ** 31n ? Number(v) : undefined;
  },
};

/** Unix time: an unsigned integer, or a float truncated to one (toncenter's UtimeType). */
export const utime: Kind<number> = {
  accepts: 'an unsigned integer (unix time)',
  schema: { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 },
  parse(text) {
    const m = /^\+?(\d{1,10})(\.\d*)?$/.exec(text);
    const v = m ? Number(m[1]) : NaN;
    return v <= 2 ** 32 - 1 ? v : undefined;
  },
};

/** Unsigned 64-bit (logical times); a string in JSON, so the schema is a decimal string pattern too. */
export const uint64: Kind<bigint> = {
  accepts: 'an unsigned 64-bit integer',
  schema: { type: 'integer', format: 'uint64', minimum: 0 },
  parse(text) {
    const v = /^\+?\d{1,20}$/.test(text) ? BigInt(text) : undefined;
    return v !== undefined && v <= UINT64_MAX ? v : undefined;
  },
};

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool forms. */
export const bool: Kind<boolean> = {
  accepts: 'a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)',
  schema: { type: 'boolean' },
  parse: (text) => (TRUE.has(text) ? true : FALSE.has(text) ? false : undefined),
};

// The forms of an address as a pattern; the workchain range and the user-friendly checksum are beyond it.
const ADDRESS_FORMS = '-?[0-9]{1,3}:[0-9a-fA-F]{64}|[A-Za-z0-9_+/-]{48}';

/** Raw `wc:hex` (any case) or user-friendly base64/base64url; normalised to raw upper case. */
export const address: Kind<string> = {
  accepts: 'an address: raw (wc:hex) or user-friendly (base64 or base64url)',
  schema: { type: 'string', pattern: `^(?:${ADDRESS_FORMS})$`, example: '0:CA6E321C7CCE9EECA60D7FDD1A1A9A0DE63A2DC3AC4F2A9AD38E16E4D3BE4D0A' },
  parse(text) {
    const a = parseAddress(text);
    return a ? rawAddress(a) : undefined;
  },
};

/** 64 hex digits (optionally `0x`), or 32 bytes of base64 / base64url; normalised to standard base64. */
export const hash: Kind<string> = {
  accepts: 'a hash: 64 hex digits (optionally 0x-prefixed) or 44-character base64 / base64url',
  schema: { type: 'string', pattern: '^(?:(?:0x)?[0-9a-fA-F]{64}|[A-Za-z0-9_+/-]{43}=?)$', example: '2Sjor9VtYljtI/BHok2Cfeyazj6Bt/P/EBgh3mGOOEM=' },
  parse(text) {
    const hex = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(text);
    if (hex) return Buffer.from(hex[1], 'hex').toString('base64');
    if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return undefined;
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes.toString('base64') : undefined;
  },
};

/**
 * A shard id: hex first (optional `0x`, up to 16 digits), then signed decimal, as toncenter reads it.
 * Normalised to the unsigned 64-bit number the store keeps (`8000000000000000` hex = 2^63).
 */
export const shard: Kind<bigint> = {
  accepts: 'a shard id: hex (e.g. 8000000000000000) or signed 64-bit decimal',
  schema: { type: 'string', pattern: '^(?:(?:0x)?[0-9a-fA-F]{1,16}|[+-]?[0-9]{1,19})$', example: '8000000000000000' },
  parse(text) {
    const hex = /^(?:0x)?([0-9a-fA-F]{1,16})$/.exec(text);
    if (hex) return BigInt('0x' + hex[1]);
    const v = decimal(text);
    return v !== undefined && v >= INT64_MIN && v < 2n ** 63n ? BigInt.asUintN(64, v) : undefined;
  },
};

export type Sort = 'asc' | 'desc';

/** `asc`/`desc`, also `a`/`d`, any case. */
export const sort: Kind<Sort> = {
  accepts: 'asc or desc',
  schema: { type: 'string', enum: ['asc', 'desc'] },
  parse(text) {
    const t = text.toLowerCase();
    return t === 'asc' || t === 'a' ? 'asc' : t === 'desc' || t === 'd' ? 'desc' : undefined;
  },
};

/** Any short text (e.g. an API key); length bounded so nothing huge travels further. */
export const text: Kind<string> = {
  accepts: 'a string of at most 256 characters',
  schema: { type: 'string', maxLength: 256 },
  // Counted in code points, as JSON Schema's maxLength counts (each takes at most two UTF-16 units).
  parse: (t) => (t.length <= 512 && [...t].length <= 256 ? t : undefined),
};

/** A signed integer kind with bounds (offsets, page sizes, timeouts): out-of-range values are errors. */
export function intRange(min: number, max: number): Kind<number> {
  return {
    accepts: `an integer from ${min} to ${max}`,
    schema: { type: 'integer', minimum: min, maximum: max },
    parse(t) {
      const v = decimal(t);
      return v !== undefined && v >= BigInt(min) && v <= BigInt(max) ? Number(v) : undefined;
    },
  };
}

/** An address, or the literal `null` (toncenter's AccountAddressNullable: SQL `IS NULL`). */
export const addressNullable: Kind<string | null> = {
  accepts: 'an address (raw or user-friendly) or null',
  schema: { type: 'string', pattern: `^(?:null|${ADDRESS_FORMS})$`, example: 'null' },
  parse: (text) => (text === 'null' ? null : address.parse(text)),
};

/**
 * An opcode (toncenter's OpcodeType): `0x` hex; otherwise hex first (up to 8 digits), then signed
 * 32-bit decimal, so `10` is 0x10. Normalised to the unsigned 32-bit value the store keeps.
 */
export const opcode: Kind<number> = {
  accepts: 'an opcode: hex (0x-prefixed or not, up to 8 digits) or signed 32-bit decimal',
  schema: { type: 'string', pattern: '^(?:(?:0[xX])?[0-9a-fA-F]{1,8}|[+-]?[0-9]{1,10})$', example: '0x0f8a7ea5' },
  parse(text) {
    const hex = /^(?:0[xX])?([0-9a-fA-F]{1,8})$/.exec(text);
    if (hex) return Number.parseInt(hex[1], 16);
    const v = int32.parse(text);
    return v === undefined ? undefined : v >>> 0;
  },
};

export type Direction = 'in' | 'out';

/** A message direction: `in` or `out`. */
export const direction: Kind<Direction> = {
  accepts: 'in or out',
  schema: { type: 'string', enum: ['in', 'out'] },
  parse: (text) => (text === 'in' || text === 'out' ? text : undefined),
};
