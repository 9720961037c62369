import type { Logger } from '@tonstream/runtime';
import { masterchainInfo, type Store, StoreError } from '@tonstream/store';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { createIndexState } from './index-state.js';
import { toV3Block } from './v3-block.js';

/** An error with the HTTP status toncenter uses for it; the body is `{"error": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export type ApiDeps = { store: Store; registry: Registry; logger: Logger };

/**
 * The HTTP API. This is the skeleton the v2/v3 endpoints grow on: routing, errors as toncenter
 * shapes them (`{"error": …}` with the status), request metrics, health. Served endpoints so far:
 * `/healthcheck`, `/metrics`, `/api/v3/masterchainInfo`.
 */
export function createApp({ store, registry, logger }: ApiDeps): express.Express {
  const app = express();
  const index = createIndexState(store);
  app.disable('x-powered-by');
  const duration = new Histogram({
    name: 'tonstream_api_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.use((req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => end({ route: req.route?.path ?? 'unmatched', status: String(res.statusCode) }));
    next();
  });

  app.get('/healthcheck', async (_req, res) => {
    const ok = await store.ping().catch(() => false);
    res.status(ok ? 200 : 503).type('text/plain').send(ok ? 'OK' : 'ClickHouse unreachable');
  });

  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });

  // `last` is the watermark's block: blocks above it may still lack records, so they are not indexed yet.
  app.get('/api/v3/masterchainInfo', async (_req, res) => {
    const watermark = await index.watermark();
    const info = watermark && (await masterchainInfo(store, watermark));
    if (!info) throw new HttpError(404, 'masterchain info not found: no masterchain block indexed yet');
    res.setHeader('X-Index-Mc-Seqno', String(watermark.mc_seqno));
    res.json({ last: toV3Block(info.last), first: toV3Block(info.first) });
  });

  app.use('/api/v3', (req) => {
    throw new HttpError(404, `no such endpoint: ${req.method} /api/v3${req.path}`);
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) {
      res.status(err.status).json({ error: err.message });
      return;
    }
    if (err instanceof StoreError && err.retriable) {
      logger.warn('store unavailable', { path: req.path, err });
      res.status(503).json({ error: `index unavailable: ${err.message}` });
      return;
    }
    logger.error('request failed', { path: req.path, err });
    res.status(500).json({ error: `internal server error: ${(err as Error).message}` });
  });
  return app;
}
