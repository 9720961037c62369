import type { Logger } from '@tonstream/runtime';
import type { HotGate, Store } from '@tonstream/store';
import express, { type NextFunction, type Request, type Response } from 'express';
import { type Failure, failureOf } from '../http/failure.js';
import type { IndexState } from '../index-state.js';
import type { Liteserver } from '../chain/liteserver.js';
import { readDeadline } from '../http/read-deadline.js';
import { MAX_JSON_BODY_BYTES, parseJson } from '../http/json-body.js';
import { MAX_TIMEOUT_MS } from '../http/params.js';
import { errorEnvelope, okEnvelope, PAGE_NOTE, V2Error } from './envelope.js';
import { bodyValues, parseValues, type V2Method } from './method.js';

/** `hot`: the hot tier (@tonstream/store hotGate), read first by the index-backed methods. */
export type V2Deps = { store: Store; index: IndexState; lite: Liteserver; testnet: boolean; logger: Logger; hot?: HotGate };

/** Index reads of a v2 call end after this long: v3's default (and cap) of X-Timeout. */
export const V2_READ_TIMEOUT_MS = MAX_TIMEOUT_MS;

/** Express JSON parsing with its failures as v2 envelopes (400 not JSON, 413 too large). */
function jsonBody(req: Request, res: Response, next: NextFunction): void {
  const started = Date.now();
  parseJson(req, res, (err?: unknown) => {
    if (err === undefined) return next();
    const e = err as { type?: string; message?: string };
    const status = e.type === 'entity.too.large' ? 413 : 400;
    const message = status === 413 ? `request body too large: over ${MAX_JSON_BODY_BYTES} bytes` : `request body is not valid JSON: ${e.message ?? 'unreadable'}`;
    res.status(status).json(errorEnvelope(status, message, started));
  });
}

/**
 * The /api/v2 router: every method at `/<name>` (GET with the query, POST with a JSON body) and
 * `/jsonRPC`; anything else is the envelope with 404 (an unknown path) or 405 (a wrong HTTP method).
 */
export function v2Router(methods: readonly V2Method[], deps: V2Deps): express.Router {
  const router = express.Router();
  const byName = new Map<string, V2Method>();
  for (const m of methods) for (const name of [m.name, ...(m.aliases ?? [])]) byName.set(name, m);

  const call = async (m: V2Method, values: URLSearchParams | Map<string, string[]>, signal: AbortSignal) => {
    const params = parseValues(m.params, values);
    const [watermark, floor] = await Promise.all([deps.index.watermark(), deps.index.floor()]);
    const mc = watermark?.mc_seqno ?? null;
    const scope = { watermark: mc, floor: floor ?? 0, query: { timeoutMs: V2_READ_TIMEOUT_MS, signal }, hot: await deps.hot?.at(mc) };
    return m.handle({ params, store: deps.store, scope, lite: deps.lite, testnet: deps.testnet });
  };

  const answer = async (res: Response, name: string, run: (signal: AbortSignal) => Promise<unknown>, rpc?: { id: unknown; jsonrpc: unknown }) => {
    const started = Date.now();
    const echo = rpc ? { ...(rpc.jsonrpc !== undefined ? { jsonrpc: rpc.jsonrpc } : {}), ...(rpc.id !== undefined && rpc.id !== null ? { id: rpc.id } : {}) } : {};
    const deadline = readDeadline(res, V2_READ_TIMEOUT_MS);
    try {
      const result = await run(deadline.signal);
      // A page shorter than asked says why, beside the result (clients that do not know it ignore it).
      const page = typeof result === 'object' && result !== null ? (result as { [PAGE_NOTE]?: unknown })[PAGE_NOTE] : undefined;
      res.status(200).json({ ...okEnvelope(result, started), ...(page ? { page } : {}), ...echo });
    } catch (err) {
      if (deadline.clientGone()) return; // its reads are cancelled; nobody to answer
      const { status, message, requestId }: Failure = deadline.isTimeout(err) ? { status: 504, message: `timeout: the index query took over ${V2_READ_TIMEOUT_MS} ms` } : failureOf(err, deps.logger, { method: name });
      if (requestId !== undefined) res.setHeader('X-Request-Id', requestId);
      res.status(status).json({ ...errorEnvelope(status, message, started), ...(requestId === undefined ? {} : { request_id: requestId }), ...echo });
    } finally {
      deadline.end();
    }
  };

  for (const [name, m] of byName) {
    const path = `/${name}`;
    router.all(path, (req, res, next) => {
      res.locals.route = `/api/v2${path}`;
      next();
    });
    if ((m.http ?? 'get+post') === 'get+post') {
      router.get(path, (req, res) => answer(res, name, (signal) => call(m, new URL(req.originalUrl, 'http://localhost').searchParams, signal)));
    }
    router.post(path, jsonBody, (req, res) => answer(res, name, (signal) => call(m, bodyValues(m.params, req.body), signal)));
    router.all(path, (req, res) => {
      res.status(405).json(errorEnvelope(405, `method ${req.method} is not supported`, Date.now()));
    });
  }

  router.post('/jsonRPC', jsonBody, (req, res) => {
    res.locals.route = '/api/v2/jsonRPC';
    const body = req.body as { id?: unknown; jsonrpc?: unknown; method?: unknown; params?: unknown } | undefined;
    const rpc = { id: body?.id, jsonrpc: body?.jsonrpc };
    const name = typeof body?.method === 'string' ? body.method : '';
    return answer(res, `jsonRPC ${name}`, async (signal) => {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new V2Error(422, 'request body must be a JSON-RPC object {id, jsonrpc, method, params}');
      if (typeof body.method !== 'string' || body.method === '') throw new V2Error(422, 'parameter "method" is required: the v2 method name');
      const m = byName.get(body.method);
      if (!m) throw new V2Error(404, `Unknown method: ${body.method.slice(0, 64)}`);
      return call(m, bodyValues(m.params, body.params), signal);
    }, rpc);
  });
  router.all('/jsonRPC', (req, res) => {
    res.locals.route = '/api/v2/jsonRPC';
    res.status(405).json(errorEnvelope(405, `method ${req.method} is not supported`, Date.now()));
  });

  router.use((req, res) => {
    res.locals.route = res.locals.route ?? '/api/v2/unmatched';
    res.status(404).json(errorEnvelope(404, 'Not Found', Date.now()));
  });
  return router;
}
