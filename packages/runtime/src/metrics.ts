import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { redactCredentials } from './redact.js';
import { metricsText } from './workers.js';

/** What /healthcheck answers; `details` carries service-specific figures (e.g. the writer's watermark). */
export type HealthStatus = { status: 'ok' | 'degraded' | 'error'; reasons: string[]; details?: Record<string, unknown> };

export type MetricsServerOptions = {
  registry: Registry;
  port: number;
  host?: string;
  /** Reported on /healthcheck; HTTP 503 when status is `error`. */
  health?: () => HealthStatus;
};

/** `tonstream_health_status`: /healthcheck's status as a number, for alerts and the status page. */
export const HEALTH_METRIC = 'tonstream_health_status';
export const HEALTH_LEVELS: Readonly<Record<HealthStatus['status'], number>> = { ok: 0, degraded: 1, error: 2 };

/** The worst status of the parts, with all their reasons (and their details merged). */
export function combineHealth(...parts: HealthStatus[]): HealthStatus {
  const worst = parts.reduce((w, p) => (HEALTH_LEVELS[p.status] > HEALTH_LEVELS[w] ? p.status : w), 'ok' as HealthStatus['status']);
  const details = parts.reduce<Record<string, unknown> | undefined>((d, p) => (p.details ? { ...d, ...p.details } : d), undefined);
  return { status: worst, reasons: parts.flatMap((p) => p.reasons), ...(details ? { details } : {}) };
}

/** A registry with the process metrics (CPU, memory, event loop lag) and a `service` label. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: 'tonstream_' });
  return registry;
}

/** Serves `/metrics` (Prometheus text format, with HEALTH_METRIC) and `/healthcheck` (JSON). */
export async function startMetricsServer(options: MetricsServerOptions): Promise<Server> {
  const { registry, port, host = '127.0.0.1', health = () => ({ status: 'ok', reasons: [] }) } = options;
  if (!registry.getSingleMetric(HEALTH_METRIC)) {
    new Gauge({
      name: HEALTH_METRIC,
      help: 'What /healthcheck says: 0 ok, 1 degraded, 2 error (the reasons are in /healthcheck)',
      registers: [registry],
      collect() {
        this.set(HEALTH_LEVELS[health().status]);
      },
    });
  }
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      metricsText(registry).then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    } else if (path === '/healthcheck') {
      const h = health();
      // Reasons often quote a client's error, which may name a connection URL with its password.
      const body = { ...h, reasons: h.reasons.map(redactCredentials) };
      res.writeHead(h.status === 'error' ? 503 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthcheck\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
