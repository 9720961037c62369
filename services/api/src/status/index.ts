/**
 * `/status`: what is indexed, rates, dead letters and each service's health, as a page
 * (`page.ts`) and as JSON (`/status/data.json`). Also registers the API's index metrics.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readHistoryRanges, type Store } from '@tonstream/store';
import express from 'express';
import type { Registry } from 'prom-client';
import type { IndexState } from '../index-state.js';
import { loadStatusConfig, type StatusConfig } from './config.js';
import { registerIndexMetrics } from './index-metrics.js';
import { STATUS_PAGE, STATUS_SCRIPT } from './page.js';
import { publicSnapshot } from './public.js';
import { reusedFor } from './reuse.js';
import { readSnapshot } from './snapshot.js';

export const STATUS_PATH = '/status';
/** The page's data: rate-limited like the API (app.ts) and computed at most once per SNAPSHOT_REUSE_MS. */
export const STATUS_DATA_PATH = `${STATUS_PATH}/data.json`;
/** Requests within this long of a computation get its result: its queries and probes are not made per request. */
const SNAPSHOT_REUSE_MS = 3_000;

const UPLOT_DIST = join(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
/** The only files served from uPlot's package. */
const UPLOT_ASSETS: Readonly<Record<string, string>> = { 'uPlot.iife.min.js': 'text/javascript', 'uPlot.min.css': 'text/css' };

export type StatusDeps = { store: Store; index: IndexState; registry: Registry; /** @default loadStatusConfig(process.env) */ config?: StatusConfig };

export function createStatusRouter({ store, index, registry, config = loadStatusConfig() }: StatusDeps): express.Router {
  registerIndexMetrics(registry, index, Date.now, async () => (await readHistoryRanges(store, { timeoutMs: 2_000 })).reduce((n, r) => n + r.holes.length, 0));
  const router = express.Router();
  const route = (path: string): express.RequestHandler => (_req, res, next) => {
    res.locals.route = path;
    next();
  };
  router.get(STATUS_PATH, route(STATUS_PATH), (_req, res) => {
    res.type('html').send(STATUS_PAGE);
  });
  router.get(`${STATUS_PATH}/status.js`, route(`${STATUS_PATH}/status.js`), (_req, res) => {
    res.type('text/javascript').send(STATUS_SCRIPT);
  });
  const snapshot = reusedFor(SNAPSHOT_REUSE_MS, async () => publicSnapshot(await readSnapshot(store, index, config)));
  router.get(STATUS_DATA_PATH, route(STATUS_DATA_PATH), async (_req, res) => {
    res.set('cache-control', 'no-store').json(await snapshot());
  });
  for (const [name, type] of Object.entries(UPLOT_ASSETS)) {
    router.get(`${STATUS_PATH}/${name}`, route(`${STATUS_PATH}/${name}`), (_req, res) => {
      res.type(type).sendFile(join(UPLOT_DIST, name), { maxAge: '1h' });
    });
  }
  return router;
}
