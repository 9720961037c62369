import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** What /healthcheck answers; `details` carries service-specific figures (e.g. the writer's watermark). */
export type HealthStatus = { status: 'ok' | 'degraded' | 'error'; reasons: string[]; details?: Record<string, unknown> };

export type MetricsServerOptions = {
  registry: Registry;
  port: number;
  host?: string;
  /** Reported on /healthcheck; HTTP 503 when status is `error`. */
  health?: () => HealthStatus;
};

/** A registry with the process metrics (CPU, memory, event loop lag) and a `service` label. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: 'tonstream_' });
  return registry;
}

/** Serves `/metrics` (Prometheus text format) and `/healthcheck` (JSON). */
export async function startMetricsServer(options: MetricsServerOptions): Promise<Server> {
  const { registry, port, host = '127.0.0.1', health = () => ({ status: 'ok', reasons: [] }) } = options;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    } else if (path === '/healthcheck') {
      const h = health();
      res.writeHead(h.status === 'error' ? 503 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(h));
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
