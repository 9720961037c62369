import { type Logger, metricsText } from '@tonstream/runtime';
import type { HotGate, Store } from '@tonstream/store';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import { failureOf } from './http/failure.js';
import { HttpError } from './http/http-error.js';
import { createIndexState } from './index-state.js';
import { type Liteserver, noLiteserver } from './chain/liteserver.js';
import { cors } from './http/cors.js';
import { createStatusRouter, STATUS_DATA_PATH } from './status/index.js';
import type { RateLimit } from './limits/rate-limit.js';
import { createV2Router } from './v2/index.js';
import { createV3Router } from './v3/index.js';
import type { RequestDefaults } from './http/params.js';
import { STREAMING_HTTP_PATHS, type StreamingProxy } from './streaming-proxy.js';
import type { PendingReader } from './v3/pending/pending.js';
import type { ResponseCheckMode } from './v3/response-check.js';
import { redirectRootToDocs } from './v3/docs-page.js';
import type { WatermarkFloor } from './watermark-floor.js';

export { HttpError };

/**
 * `testnet`: user-friendly addresses carry the test-only flag. @default false
 * `rateLimit`: API keys and rate limits on /api/v2 and /api/v3 (`limits/`). @default none (off)
 * `lite`: liteservers for the v2 node-level methods and v3's legacy ones. @default none (they answer 503)
 * `pending`: the emulator's Redis, for /pendingTraces, /pendingActions, /pendingTransactions. @default none (they answer 503)
 * `healthNotes`: what works less well without stopping the API (e.g. pending externals not published), added to /healthcheck. @default none
 */
export type ApiDeps = {
  store: Store;
  registry: Registry;
  logger: Logger;
  testnet?: boolean;
  rateLimit?: RateLimit;
  lite?: Liteserver;
  pending?: PendingReader;
  /** The hot tier of point reads. @default none (ClickHouse answers) */
  hot?: HotGate;
  healthNotes?: () => string[];
  /** v3 values of parameters a request leaves out (API_DEFAULT_LIMIT). */
  defaults?: RequestDefaults;
  /** Passes /api/streaming/v2/sse (and health) on to the streamer; WebSocket upgrades are the server's (main.ts). */
  streaming?: StreamingProxy;
  /** v3 answers checked against the served OpenAPI document (API_CHECK_RESPONSES). @default off */
  checkResponses?: ResponseCheckMode;
  /** The highest watermarks every API process served (cluster mode), so none serves lower. @default none (this process's own) */
  watermarkFloor?: WatermarkFloor;
};

/**
 * The HTTP API. This is the skeleton the v2/v3 endpoints grow on: routing, errors as toncenter
 * shapes them (`{"error": …}` with the status), request metrics, health. Served endpoints so far:
 * `/healthcheck`, `/metrics` and the v3 endpoints of `src/v3/index.ts` (plus `/api/v3/openapi.json`
 * and its docs page `/api/v3/index.html`, where `GET /` redirects).
 */
export function createApp({ store, registry, logger, testnet = false, rateLimit, lite = noLiteserver(), pending, hot, healthNotes = () => [], defaults, streaming, checkResponses = 'off', watermarkFloor }: ApiDeps): express.Express {
  const app = express();
  const index = createIndexState(store, { floor: watermarkFloor });
  app.disable('x-powered-by');
  // toncenter sends no ETag, and no client of it asks conditionally: hashing every answer (SHA-1 over up to ~100 KB) was ~3% of a page's CPU.
  app.disable('etag');
  const duration = new Histogram({
    name: 'tonstream_api_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.use((req, res, next) => {
    const end = duration.startTimer();
    // v3 endpoints name their full route in res.locals (req.route is relative to the v3 router).
    res.on('finish', () => end({ route: (res.locals.route as string | undefined) ?? req.route?.path ?? 'unmatched', status: String(res.statusCode) }));
    next();
  });

  app.get('/healthcheck', async (_req, res) => {
    const ok = await store.ping().catch(() => false);
    const limits = rateLimit?.mode();
    const notes = [...(limits && !limits.shared ? [`rate limits are per-process: ${limits.reason}`] : []), ...healthNotes()];
    res.status(ok ? 200 : 503).type('text/plain').send((ok ? 'OK' : 'ClickHouse unreachable') + notes.map((n) => `; ${n}`).join(''));
  });

  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await metricsText(registry));
  });

  app.get('/', redirectRootToDocs);
  app.use(['/api/v2', '/api/v3'], cors);
  if (rateLimit) app.use(['/api/v2', '/api/v3', STATUS_DATA_PATH], rateLimit.middleware);
  app.use(createStatusRouter({ store, index, registry }));
  app.use('/api/v2', createV2Router({ store, index, lite, testnet, logger, hot }));
  app.use('/api/v3', createV3Router({ store, index, testnet, lite, pending, hot, defaults, checkResponses: responseCheck(checkResponses, registry, logger) }));
  if (streaming) app.all(STREAMING_HTTP_PATHS, (req, res) => streaming.http(req, res));

  app.use('/api/v3', (req) => {
    throw new HttpError(404, `no such endpoint: ${req.method} /api/v3${req.path}`);
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, message, requestId } = failureOf(err, logger, { path: req.path });
    if (requestId !== undefined) res.setHeader('X-Request-Id', requestId);
    res.status(status).json({ error: message, ...(requestId === undefined ? {} : { request_id: requestId }) });
  });
  return app;
}

function responseCheck(mode: ResponseCheckMode, registry: Registry, logger: Logger) {
  if (mode === 'off') return undefined;
  const mismatches = new Counter({ name: 'tonstream_api_openapi_mismatches_total', help: 'v3 answers that do not match the served OpenAPI document, by route', labelNames: ['route'], registers: [registry] });
  return {
    reject: mode === 'reject',
    report(route: string, problem: string) {
      mismatches.inc({ route });
      logger.warn('answer does not match the OpenAPI document', { route, problem });
    },
  };
}
