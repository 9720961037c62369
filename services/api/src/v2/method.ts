import type { ReadScope, Store } from '@tonstream/store';
import type { Liteserver } from '../chain/liteserver.js';
import { type Params, type ParsedParams, queryValues, readParams } from '../http/params.js';
import { V2Error } from './envelope.js';

/** What a v2 handler gets: typed parameters and where answers come from. */
export type V2Context<P extends Params> = {
  params: ParsedParams<P>;
  store: Store;
  /** Every index read is bounded by this scope's watermark. */
  scope: ReadScope;
  lite: Liteserver;
  testnet: boolean;
};

/**
 * One v2 method (docs/toncenter-v2.md §2): its name (and aliases), parameters, HTTP methods and a thin
 * handler. The same declaration serves `GET /api/v2/<name>` (query), `POST /api/v2/<name>` (JSON
 * body) and `POST /api/v2/jsonRPC`.
 */
export type V2Method<P extends Params = Params> = {
  name: string;
  aliases?: readonly string[];
  summary: string;
  /** Where the answer comes from, for the docs. */
  source: 'index' | 'liteserver' | 'index+liteserver' | 'local';
  /** `post`: POST only (runGetMethod, send*, estimateFee); otherwise GET and POST. @default 'get+post' */
  http?: 'get+post' | 'post';
  params: P;
  handle(ctx: V2Context<P>): Promise<unknown>;
};

export function defineMethod<P extends Params>(m: V2Method<P>): V2Method {
  return m as unknown as V2Method;
}

/** One JSON value of a field as the text a kind parses; objects and arrays stay JSON text. */
function fieldText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/**
 * A JSON body's (or jsonRPC `params`') fields as the texts the declarations read. A list parameter
 * takes an array (each item a text) or one value; `null` and `""` are absent, as in toncenter.
 */
export function bodyValues(params: Params, body: unknown): Map<string, string[]> {
  const values = new Map<string, string[]>();
  if (body === undefined || body === null || (Array.isArray(body) && body.length === 0)) return values;
  if (typeof body !== 'object' || Array.isArray(body)) throw new V2Error(422, 'params must contain an object');
  for (const [name, value] of Object.entries(body)) {
    const param = Object.hasOwn(params, name) ? params[name] : undefined;
    if (!param) continue;
    const items = param.array && Array.isArray(value) ? value : [value];
    const texts = items.map(fieldText).filter((t): t is string => t !== undefined && t !== '');
    values.set(name, texts);
  }
  return values;
}

/** Parses a request's values against a declaration: 422 naming a bad parameter. */
export function parseValues<P extends Params>(params: P, values: URLSearchParams | Map<string, string[]>): ParsedParams<P> {
  return readParams(params, values instanceof URLSearchParams ? queryValues(values) : values);
}
