import express, { type NextFunction, type Request, type Response } from 'express';
import { HttpError } from './http-error.js';
import type { JsonSchema } from './kinds.js';
import type { Param, Params } from './params.js';

/**
 * POST endpoints take their parameters as the fields of a JSON object body, read by the same
 * declarations as query parameters (so validation and the OpenAPI requestBody cannot drift apart).
 */

/** Largest JSON body a POST endpoint reads; a BoC list at its 1000-item limit fits. */
export const MAX_JSON_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects in a JSON body (RFC 8259 §9 lets a parser limit it). The
 * deepest request needs a third of it: a runGetMethod stack 256 tuples deep. Code that walks a body
 * recursively (JSON.stringify, the stack readers) overflows the call stack some thousands deep,
 * and V8's JSON.parse of 2 MB of nesting takes over half a second: so it is counted on the bytes.
 */
export const MAX_JSON_DEPTH = 1024;

/** Whether `text` (a JSON body, bytes or decoded) nests arrays and objects deeper than `max`. */
export function nestsDeeperThan(text: Uint8Array | string, max: number): boolean {
  const code = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = code(i);
    if (inString) {
      if (c === 0x5c) i++; // an escape: the next character is not a closing quote
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** body-parser's `verify`: refuses deep bodies before JSON.parse (UTF-8 multi-byte characters hold no ASCII bytes). */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  let text: Uint8Array | string = body;
  if (!/^utf-?8$/i.test(encoding)) {
    try {
      text = new TextDecoder(encoding).decode(body);
    } catch {
      throw Object.assign(new Error(`unsupported charset "${encoding}"`), { status: 415, type: 'charset.unsupported' });
    }
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(`arrays and objects nested deeper than ${MAX_JSON_DEPTH} levels`), { status: 400, type: 'entity.parse.failed' });
  }
}

/** express.json for the API's POST bodies (v2 and v3): any content type, at most MAX_JSON_BODY_BYTES and MAX_JSON_DEPTH. */
export const parseJson = express.json({ limit: MAX_JSON_BODY_BYTES, type: () => true, verify: refuseDeepJson });

/** Express middleware: the body parsed as JSON (any content type), its failures as 4xx naming the body. */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  parseJson(req, res, (err?: unknown) => next(err === undefined ? undefined : bodyError(err)));
}

function bodyError(err: unknown): HttpError {
  const e = err as { type?: string; status?: number; message?: string };
  if (e.type === 'entity.too.large') return new HttpError(413, `request body too large: over ${MAX_JSON_BODY_BYTES} bytes`);
  if (e.type === 'entity.parse.failed') return new HttpError(400, `request body is not valid JSON: ${e.message}`);
  const status = e.status !== undefined && e.status >= 400 && e.status < 500 ? e.status : 400;
  return new HttpError(status, `request body: ${e.message ?? 'unreadable'}`);
}

const JSON_TYPES: Record<string, string> = { integer: 'number', number: 'number', boolean: 'boolean' };

/** One JSON value of a field as the text its kind parses: strings, and numbers / booleans where the kind is one. */
function fieldText(name: string, param: Param<unknown>, value: unknown, index?: number): string {
  if (typeof value === 'string') return value;
  const type = param.kind.schema.type ?? 'string';
  if (typeof value === 'number' && JSON_TYPES[type] === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'boolean' && type === 'boolean') return String(value);
  // A structured field (legacy /runGetMethod's stack entries) reaches its kind as JSON text.
  if (typeof value === 'object' && value !== null && type === 'object') return JSON.stringify(value);
  const at = index === undefined ? '' : ` at index ${index}`;
  throw new HttpError(422, `invalid value for field "${name}"${at}: expected ${param.kind.accepts} (a JSON ${JSON_TYPES[type] ?? 'string'})`);
}

/**
 * A JSON body's fields as the texts a declaration reads, 422 naming a field of the wrong JSON type.
 * A list keeps every item (positions matter); a scalar `""` or `null` is an absent field. Unknown
 * fields are kept (empty) so that strict mode can name them.
 */
export function bodyValues(params: Params, body: unknown): Map<string, string[]> {
  const values = new Map<string, string[]>();
  if (body === undefined) return values;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(422, 'request body must be a JSON object');
  for (const [name, value] of Object.entries(body)) {
    const param = Object.hasOwn(params, name) ? params[name] : undefined;
    if (param === undefined || value === null) values.set(name, []);
    else if (param.array) {
      if (!Array.isArray(value)) throw new HttpError(422, `invalid value for field "${name}": expected an array`);
      values.set(name, value.map((v: unknown, i) => fieldText(name, param, v, i)));
    } else values.set(name, value === '' ? [] : [fieldText(name, param, value)]);
  }
  return values;
}

/** The OpenAPI schema of a declaration's JSON body. */
export function bodySchema(params: Params): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, p] of Object.entries(params)) {
    const description = `${p.description} Accepts ${p.kind.accepts}.`;
    properties[name] = p.array
      ? { type: 'array', items: p.kind.schema, ...(p.maxItems ? { maxItems: p.maxItems } : {}), description }
      : { ...p.kind.schema, description };
  }
  const required = Object.entries(params).filter(([, p]) => p.required).map(([name]) => name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
