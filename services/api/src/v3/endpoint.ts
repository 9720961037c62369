import type { HotGate, ReadScope, Store, TracesWatermark, Watermark } from '@tonstream/store';
import express, { type Request, type Response } from 'express';
import { HttpError } from '../http/http-error.js';
import type { IndexState } from '../index-state.js';
import { readDeadline } from '../http/read-deadline.js';
import { type Liteserver, noLiteserver } from '../chain/liteserver.js';
import { bodyValues, jsonBody } from '../http/json-body.js';
import type { PendingReader } from './pending/pending.js';
import type { Schema } from '../http/schema-kit.js';
import { createWatermarkCache } from './watermark-cache.js';
import { MAX_TIMEOUT_MS, type Params, type ParsedParams, queryValues, type RequestDefaults } from '../http/params.js';
import { parseRequest, SETTING_HEADERS, SETTINGS, type Settings } from './request.js';

/** What a handler gets: typed parameters, the read scope (watermark + query limits), the deps. */
export type EndpointContext<P extends Params> = {
  params: ParsedParams<P>;
  settings: Settings;
  /** Pass to every store read: bounds it by the watermark and the request's timeout. */
  scope: ReadScope;
  watermark: Watermark | null;
  store: Store;
  /** User-friendly addresses with the test-only flag (a testnet deployment). */
  testnet: boolean;
  /** The chain, for the legacy v2-style endpoints (legacy.ts). */
  lite: Liteserver;
  /** Pending (emulated) traces in Redis; undefined when not configured (the pending endpoints answer 503). */
  pending: PendingReader | undefined;
};

/**
 * One v3 endpoint: its path, its parameters, its answer's schema and a thin handler (parse is done;
 * call the store's read layer, shape the answer). Routing, errors, headers and the OpenAPI document
 * all come from this one object.
 */
export type Endpoint<P extends Params = Params, R = unknown> = {
  /** Under /api/v3, e.g. `/blocks`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params: P;
  /** Schema of the 200 answer (usually a `ref` to a component); the handler must answer its type. */
  response: Schema<R>;
  /** The 404 message, when the endpoint answers 404 for "nothing there" (documented in OpenAPI). */
  notFound?: string;
  /** Other statuses it answers with `{"error": …}` and what each means (documented in OpenAPI). */
  errors?: Readonly<Record<number, string>>;
  /**
   * The answer depends only on the parameters and the watermarks (no per-request input like a key):
   * one computation per (watermark, traces watermark, parameters) is shared by every request until
   * the watermark moves.
   * A function: only the requests whose parameters it accepts are shared (hot pages, not every lookup).
   */
  sharedPerWatermark?: boolean | ((params: ParsedParams<P>) => boolean);
  /** HTTP methods served; with `post` the parameters come as a JSON object body. @default ['get'] */
  methods?: readonly HttpMethod[];
  handle(ctx: EndpointContext<P>): Promise<NoInfer<R>>;
};

export type HttpMethod = 'get' | 'post';

/**
 * Types the handler by the declaration: its parameters by `params`, its answer by `response` (a
 * handler answering other than the schema declares does not compile). The result joins the list of
 * `Endpoint`s, where handlers are called with the parameters their own declaration parsed.
 */
export function defineEndpoint<P extends Params, R>(endpoint: Endpoint<P, R>): Endpoint {
  return endpoint as unknown as Endpoint;
}

/** `defaults`: what a request that leaves a parameter out gets (API_DEFAULT_LIMIT); toncenter's documented ones if not given. */
export type V3Deps = {
  store: Store;
  index: IndexState;
  testnet: boolean;
  now?: () => number;
  lite?: Liteserver;
  pending?: PendingReader;
  /** The hot tier when it can answer at a watermark (@tonstream/store `hotGate`). @default none: ClickHouse answers */
  hot?: HotGate;
  defaults?: RequestDefaults;
  /** Every answer checked against the served OpenAPI document (API_CHECK_RESPONSES); `reject` answers 500 on a mismatch. */
  checkResponses?: { reject: boolean; report(route: string, problem: string): void };
};

/**
 * Every response of an endpoint carries `X-Index-Mc-Seqno` (the watermark; 0 before anything is
 * indexed: masterchain seqno 0 is the zerostate, never a block), `X-Traces-Mc-Seqno` (the traces
 * watermark: traces and actions are served up to the lower of the two; 0 before the first) and,
 * once there is a watermark, `X-Index-Lag-Seconds` (now minus the watermark block's gen_utime).
 */
function indexHeaders(res: Response, watermark: Watermark | null, traces: TracesWatermark | null, nowMs: number): void {
  res.setHeader('X-Index-Mc-Seqno', String(watermark?.mc_seqno ?? 0));
  res.setHeader('X-Traces-Mc-Seqno', String(traces?.mc_seqno ?? 0));
  if (watermark) res.setHeader('X-Index-Lag-Seconds', String(Math.max(0, Math.floor(nowMs / 1000) - watermark.gen_utime)));
}

/** An express handler for one endpoint: watermark, parameters, deadline, errors to HttpError. */
export function endpointHandler(endpoint: Endpoint, deps: V3Deps): (req: Request, res: Response) => Promise<void> {
  const now = deps.now ?? Date.now;
  const shared = endpoint.sharedPerWatermark ? createWatermarkCache<string>() : undefined;
  const lite = deps.lite ?? noLiteserver();
  return async (req, res) => {
    res.locals.route = `/api/v3${endpoint.path}`;
    const [watermark, traces, floor] = await Promise.all([deps.index.watermark(), deps.index.traces(), deps.index.floor()]);
    indexHeaders(res, watermark, traces, now());
    const mc = watermark?.mc_seqno ?? null;
    const sharedKey = shared && req.method === 'GET' ? sharedRequestKey(req, traces, floor) : undefined;
    // The same request text parses to the same parameters: an answer already made for it is sent as is.
    const ready = sharedKey === undefined ? undefined : shared?.settled(mc, sharedKey);
    if (ready !== undefined) {
      res.type('json').send(ready);
      return;
    }
    const strict = String(req.headers['x-strict-params'] ?? '').toLowerCase() === 'true';
    const search = new URL(req.originalUrl, 'http://localhost').searchParams;
    const source = req.method === 'POST' ? postValues(endpoint.params, req.body, search) : search;
    const { params, settings } = parseRequest(endpoint.params, source, req.headers, strict, deps.defaults);
    const deadline = readDeadline(res, settings.timeoutMs);
    const { signal } = deadline;
    try {
      const hot = await deps.hot?.at(mc);
      const answer = (query: ReadScope['query']) => endpoint.handle({ params, settings, scope: { watermark: mc, floor: floor ?? 0, traces: traces?.mc_seqno ?? null, query, hot }, watermark, store: deps.store, testnet: deps.testnet, lite, pending: deps.pending });
      if (shared && sharedKey !== undefined && (endpoint.sharedPerWatermark === true || (endpoint.sharedPerWatermark as (p: unknown) => boolean)(params))) {
        // Computed under the longest deadline (no one request's abort), awaited under this one's;
        // serialized once for every request it answers.
        const text = shared.get(mc, sharedKey, async () => JSON.stringify(await answer({ timeoutMs: MAX_TIMEOUT_MS })));
        res.type('json').send(await Promise.race([text, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]));
      } else {
        res.json(await answer({ timeoutMs: settings.timeoutMs, signal }));
      }
    } catch (err) {
      if (deadline.clientGone()) return; // its reads are cancelled; nobody to answer
      if (deadline.isTimeout(err)) throw new HttpError(504, `timeout: the query took over ${settings.timeoutMs} ms`);
      throw err;
    } finally {
      deadline.end();
    }
  };
}

/** Headers that shape a GET request's answer besides its URL (parseRequest reads them). */
const ANSWER_HEADERS = ['x-strict-params', ...(['x_no_address_book', 'x_no_metadata', 'x_actions_version'] as const).map((s) => SETTING_HEADERS[s].toLowerCase())];

/**
 * The key of a shared answer: the request as sent (its URL, the headers that shape the answer) and the
 * traces watermark. The API key and the timeout do not change an answer: they are only checked, as
 * parseRequest checks them (a bad one is the same 422).
 */
function sharedRequestKey(req: Request, traces: TracesWatermark | null, floor: number | null): string {
  for (const name of ['api_key', 'x_timeout'] as const) {
    const h = req.headers[SETTING_HEADERS[name].toLowerCase()];
    if (typeof h === 'string' && h !== '') SETTINGS[name].read([h], SETTING_HEADERS[name]);
  }
  return [traces?.mc_seqno ?? '', floor ?? '', req.originalUrl, ...ANSWER_HEADERS.map((h) => String(req.headers[h] ?? ''))].join('\n');
}

/** A POST request's values: the body's fields, and the settings (x_timeout, ...) also from the query. */
function postValues(params: Params, body: unknown, search: URLSearchParams): Map<string, string[]> {
  const values = bodyValues(params, body);
  for (const [key, texts] of queryValues(search)) if (Object.hasOwn(SETTINGS, key)) values.set(key, texts);
  return values;
}

/** A router serving `endpoints` under its mount point (the app mounts it at /api/v3). */
export function v3Router(endpoints: readonly Endpoint[], deps: V3Deps): express.Router {
  const router = express.Router();
  for (const e of endpoints) {
    const methods = e.methods ?? ['get'];
    if (methods.includes('get')) router.get(e.path, endpointHandler(e, deps));
    if (methods.includes('post')) router.post(e.path, jsonBody, endpointHandler(e, deps));
  }
  return router;
}
