/**
 * Small composable checks for JSON values. A check returns undefined when the value fits and
 * otherwise what is wrong, prefixed by where (`.out_msgs[2].hash: …`). Checks never throw, whatever
 * the input: they are what stands between a malformed Kafka message and a writer stuck on it.
 */
export type Check = (value: unknown) => string | undefined;

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  if (typeof v === 'object') return 'an object';
  if (v === undefined) return 'nothing (the field is missing)';
  return `${typeof v} ${String(v)}`;
};

const fail = (expected: string, v: unknown) => `: expected ${expected}, got ${describe(v)}`;

export function pattern(re: RegExp, expected: string): Check {
  return (v) => (typeof v === 'string' && re.test(v) ? undefined : fail(expected, v));
}

/** Any string up to `maxLength` characters. */
export function text(maxLength = 1024): Check {
  return (v) => (typeof v === 'string' && v.length <= maxLength ? undefined : fail(`a string of at most ${maxLength} characters`, v));
}

export const bool: Check = (v) => (typeof v === 'boolean' ? undefined : fail('a boolean', v));

/** An integer number in [min, max]. */
export function int(min: number, max: number): Check {
  return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? undefined : fail(`an integer in [${min}, ${max}]`, v));
}

export const uint8 = int(0, 255);
export const uint16 = int(0, 0xffff);
export const uint32 = int(0, 0xffff_ffff);
export const int32 = int(-0x8000_0000, 0x7fff_ffff);

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** Standard base64 alphabet by char code (a loop over it is ~3x faster than a regex on hashes). */
const BASE64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64_CHAR[c.charCodeAt(0)] = 1;

function isBase64(v: string): boolean {
  if (v.length % 4 !== 0) return false;
  const pad = v.endsWith('==') ? 2 : v.endsWith('=') ? 1 : 0;
  for (let i = 0; i < v.length - pad; i++) {
    const c = v.charCodeAt(i);
    if (c > 127 || BASE64_CHAR[c] === 0) return false;
  }
  return true;
}

/** Standard base64 with padding; `bytes`: exactly that many bytes (a 32-byte hash is 44 characters). */
export function base64(bytes?: number): Check {
  const length = bytes === undefined ? undefined : Math.ceil(bytes / 3) * 4;
  const expected = bytes === undefined ? 'base64' : `${bytes} bytes in base64`;
  return (v) => (typeof v === 'string' && (length === undefined || v.length === length) && isBase64(v) ? undefined : fail(expected, v));
}

/** A non-negative integer as a decimal string below 2^bits (64-bit values and amounts travel as strings). */
export function decimal(bits: number): Check {
  const limit = 1n << BigInt(bits);
  const maxDigits = limit.toString().length;
  const expected = `a decimal string below 2^${bits}`;
  return (v) => {
    if (typeof v !== 'string' || v.length > maxDigits || !DECIMAL.test(v)) return fail(expected, v);
    return v.length < 16 || BigInt(v) < limit ? undefined : fail(expected, v);
  };
}

export function literal<T extends string | boolean>(...values: T[]): Check {
  const allowed = new Set<unknown>(values);
  return (v) => (allowed.has(v) ? undefined : fail(`one of ${values.map((x) => JSON.stringify(x)).join(', ')}`, v));
}

export function nullable(check: Check): Check {
  return (v) => (v === null ? undefined : check(v));
}

/** A field that may be absent (undefined); present, it must pass `check`. */
export function optional(check: Check): Check {
  return (v) => (v === undefined ? undefined : check(v));
}

export function arrayOf(item: Check, maxLength = 100_000): Check {
  return (v) => {
    if (!Array.isArray(v)) return fail('an array', v);
    if (v.length > maxLength) return `: expected at most ${maxLength} items, got ${v.length}`;
    for (let i = 0; i < v.length; i++) {
      const err = item(v[i]);
      if (err !== undefined) return `[${i}]${err}`;
    }
    return undefined;
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON object whose values all pass `value` and whose keys match `key`. */
export function mapOf(key: RegExp, value: Check, maxEntries = 1024): Check {
  return (v) => {
    if (!isObject(v)) return fail('an object', v);
    const keys = Object.keys(v);
    if (keys.length > maxEntries) return `: expected at most ${maxEntries} entries, got ${keys.length}`;
    for (const k of keys) {
      if (!key.test(k)) return `: unexpected key ${describe(k)}`;
      const err = value(v[k]);
      if (err !== undefined) return `.${k}${err}`;
    }
    return undefined;
  };
}

export type Shape = Record<string, Check>;

/**
 * A JSON object with these fields (an absent field is checked as undefined, so it fails unless
 * `optional`). Unknown fields are allowed: a newer decoder may add some before its readers know them.
 */
export function object(shape: Shape): Check {
  const names = Object.keys(shape);
  const checks = names.map((n) => shape[n]);
  return (v) => {
    if (!isObject(v)) return fail('an object', v);
    for (let i = 0; i < names.length; i++) {
      const err = checks[i](v[names[i]]);
      if (err !== undefined) return `.${names[i]}${err}`;
    }
    return undefined;
  };
}

/** One of several object shapes, chosen by a field's value (`skipped: true` or `false`, a `type` …). */
export function variants(field: string, byValue: Record<string, Check>): Check {
  const expected = `an object with ${field} one of ${Object.keys(byValue).join(', ')}`;
  return (v) => {
    if (!isObject(v)) return fail(expected, v);
    const key = String(v[field]);
    return Object.hasOwn(byValue, key) ? byValue[key](v) : fail(expected, v);
  };
}
