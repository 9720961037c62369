import { HttpError } from './http-error.js';
import * as kinds from './kinds.js';
import type { JsonSchema, Kind } from './kinds.js';

/**
 * Query parameters declared once per endpoint. A declaration gives both the request's parsing
 * (typed, normalised values; 422 naming the parameter otherwise) and the OpenAPI parameter objects
 * (openapi.ts). Conventions (docs/toncenter-v3.md §1.4): arrays are repeated keys (`?account=A&account=B`),
 * never comma-split; an empty value is the same as an absent one; unknown keys are ignored unless the
 * client sends `X-Strict-Params: true`.
 */
export type Param<V> = {
  kind: Kind<unknown>;
  description: string;
  required: boolean;
  array: boolean;
  /** Most values an array parameter takes. */
  maxItems?: number;
  default?: unknown;
  /** Set on `limit()` without a fixed default: its default is the operator's (RequestDefaults.limit). */
  configuredDefault?: true;
  /** The value handed to the handler, from the non-empty texts sent for the key; throws ParamError. */
  read(texts: string[], name: string): V;
};

export type Params = Record<string, Param<unknown>>;

/** What a handler receives for a declaration. */
export type ParsedParams<P extends Params> = { [K in keyof P]: P[K] extends Param<infer V> ? V : never };

/** Largest value echoed back in an error message. */
const ECHO_CHARS = 64;

/** A value as error messages echo it: cut to ECHO_CHARS. */
export const echo = (text: string) => (text.length > ECHO_CHARS ? `${text.slice(0, ECHO_CHARS)}…` : text);

export function invalidParam(name: string, text: string, accepts: string): HttpError {
  return new HttpError(422, `invalid value for parameter "${name}": expected ${accepts}, got ${JSON.stringify(echo(text))}`);
}

function one<T>(kind: Kind<T>, texts: string[], name: string): T {
  // Like gorilla/schema (toncenter), a repeated single-valued key takes the last value; unlike it,
  // every value is checked, so a bad one is refused instead of silently dropped.
  let v: T | undefined;
  for (const text of texts) {
    v = kind.parse(text);
    if (v === undefined) throw invalidParam(name, text, kind.accepts);
  }
  return v as T;
}

/** An optional parameter: undefined when absent. */
export function optional<T>(kind: Kind<T>, description: string): Param<T | undefined> {
  return { kind, description, required: false, array: false, read: (texts, name) => (texts.length === 0 ? undefined : one(kind, texts, name)) };
}

/** A required parameter: 422 `parameter "x" is required` when absent. */
export function required<T>(kind: Kind<T>, description: string): Param<T> {
  return {
    kind,
    description,
    required: true,
    array: false,
    read(texts, name) {
      if (texts.length === 0) throw new HttpError(422, `parameter "${name}" is required`);
      return one(kind, texts, name);
    },
  };
}

/** A parameter with a default when absent. */
export function withDefault<T>(kind: Kind<T>, def: T, description: string): Param<T> {
  return { kind, description, required: false, array: false, default: def, read: (texts, name) => (texts.length === 0 ? def : one(kind, texts, name)) };
}

/** A repeatable parameter: undefined when absent, else every value parsed, at most `maxItems`. */
export function list<T>(kind: Kind<T>, description: string, maxItems = 1000): Param<T[] | undefined> {
  return {
    kind,
    description,
    required: false,
    array: true,
    maxItems,
    read(texts, name) {
      if (texts.length === 0) return undefined;
      if (texts.length > maxItems) throw new HttpError(422, `too many values for parameter "${name}": ${texts.length} > ${maxItems}`);
      return texts.map((t) => {
        const v = kind.parse(t);
        if (v === undefined) throw invalidParam(name, t, kind.accepts);
        return v;
      });
    },
  };
}

/** A repeatable parameter that must be given; `missing` is the 422 message when it is not (toncenter's wording). */
export function requiredList<T>(kind: Kind<T>, description: string, missing: string, maxItems = 1000): Param<T[]> {
  const base = list(kind, description, maxItems);
  return {
    ...base,
    required: true,
    read(texts, name) {
      const v = base.read(texts, name);
      if (v === undefined) throw new HttpError(422, missing);
      return v;
    },
  };
}

/**
 * Page size of lists when a request names none, unless the operator sets another (API_DEFAULT_LIMIT):
 * toncenter's docs and hosted service say 10; its server takes it from a flag (`-default-limit`, 100).
 */
export const DEFAULT_LIMIT = 10;

/** What the operator sets for requests that leave a parameter out. */
export type RequestDefaults = { limit: number };
export const MAX_LIMIT = 1000;

const int64 = kinds.intRange(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);

/**
 * `limit`: values below 1 become 1 (as toncenter); above MAX_LIMIT is an error naming `limit`. Absent:
 * `fixed`, or else the operator's default (RequestDefaults; DEFAULT_LIMIT here).
 */
export function limit(fixed?: number): Param<number> {
  const def = fixed ?? DEFAULT_LIMIT;
  return {
    kind: { ...int64, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
    description: `Page size, 1..${MAX_LIMIT}.`,
    required: false,
    array: false,
    default: def,
    ...(fixed === undefined ? { configuredDefault: true as const } : {}),
    read(texts, name) {
      if (texts.length === 0) return def;
      // Each value of a repeated key is checked, as one() does.
      const values = texts.map((t) => one(int64, [t], name));
      const over = values.find((v) => v > MAX_LIMIT);
      if (over !== undefined) throw new HttpError(422, `limit is not allowed: ${over} > ${MAX_LIMIT}`);
      return Math.max(1, values[values.length - 1]);
    },
  };
}

/**
 * `offset`: an int32 as toncenter declares it (§2: `offset` int32), so at most 2^31 - 1 rows are
 * skipped; negative values become 0 (as toncenter).
 */
export function offset(): Param<number> {
  return {
    kind: { ...kinds.int32, schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 2 ** 31 - 1 } },
    description: 'Rows to skip (OFFSET pagination), up to 2147483647; default 0.',
    required: false,
    array: false,
    default: 0,
    read: (texts, name) => (texts.length === 0 ? 0 : Math.max(0, one(kinds.int32, texts, name))),
  };
}

/** `sort`: asc/desc (a/d, any case). */
export function sort(def: kinds.Sort, description = `Sort direction; default ${def}.`): Param<kinds.Sort> {
  return withDefault(kinds.sort, def, description);
}

/** Server-side cap of X-Timeout, as toncenter (§1.3): also the default. */
export const MAX_TIMEOUT_MS = 3000;

/** The query's values per key, empty values dropped (an empty value is an absent parameter). */
export function queryValues(search: URLSearchParams): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [key, value] of search) {
    if (!values.has(key)) values.set(key, []);
    if (value !== '') values.get(key)!.push(value);
  }
  return values;
}

/**
 * Reads a request's values (per key, empty values dropped) against a declaration: 422 naming a bad
 * parameter. A `limit()` left out takes the operator's default.
 */
export function readParams<P extends Params>(params: P, values: Map<string, string[]>, defaults: RequestDefaults = { limit: DEFAULT_LIMIT }): ParsedParams<P> {
  const parsed: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(params)) {
    const texts = values.get(name) ?? [];
    parsed[name] = texts.length === 0 && param.configuredDefault ? defaults.limit : param.read(texts, name);
  }
  return parsed as ParsedParams<P>;
}

export type { JsonSchema };
