import { HttpError } from '../http/http-error.js';

/**
 * toncenter v2's envelope (docs/toncenter-v2.md §1.3): `{ok: true, result, @extra}` or
 * `{ok: false, error, code, @extra}` with the HTTP status equal to `code`. `@extra` is the C++
 * server's `<unix seconds>:<liteserver ids or _>:<elapsed ms>`; clients treat it as opaque.
 */

/** A v2 error: `status` is both the HTTP status and the envelope's `code`. */
export class V2Error extends HttpError {
}

export const notFound = (what: string) => new V2Error(404, what);

/** The `@extra` string of an answer that took `elapsedMs`. */
export function extra(startedMs: number, nowMs = Date.now()): string {
  return `${Math.floor(nowMs / 1000)}:_:${(nowMs - startedMs).toFixed(3)}`;
}

export type V2Envelope = { ok: true; result: unknown; '@extra': string } | { ok: false; error: string; code: number; '@extra': string };

export function okEnvelope(result: unknown, startedMs: number): V2Envelope {
  return { ok: true, result, '@extra': extra(startedMs) };
}

export function errorEnvelope(status: number, error: string, startedMs: number): V2Envelope {
  return { ok: false, error, code: status, '@extra': extra(startedMs) };
}

/** Why a page holds fewer items than asked while the history goes on beyond it. */
export type PageNote = { requested: number; returned: number; complete: false; reason: string; previous_transaction_id?: { lt: string; hash: string } };

/** A result with a page note: the router puts it as `page` beside `result` (clients that do not know it ignore it). */
export const PAGE_NOTE = Symbol('page note');
export function withPageNote<T extends object>(result: T, note: PageNote): T {
  return Object.assign(result, { [PAGE_NOTE]: note });
}
