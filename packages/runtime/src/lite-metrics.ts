/**
 * Prometheus metrics of a service's liteserver pool, `tonstream_<area>_liteserver_*`: the
 * QueryObserver the service hands @tonstream/lite-client (which itself imports no metrics library).
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** One query attempt, as @tonstream/lite-client's QueryEvent reports it. */
export type LiteQueryEvent = { server: string; method: string; durationMs: number; result: 'ok' | 'error' | 'timeout' | 'gone'; attempt: number };

/** Liteserver round trips: sub-ms on localhost, seconds for a multi-MB mainnet block over pure-JS AES. */
const QUERY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FAILED_RESULTS: readonly Exclude<LiteQueryEvent['result'], 'ok'>[] = ['error', 'timeout', 'gone'];

export type LiteQueryMetrics = { observeQuery(e: LiteQueryEvent): void };

export function createLiteQueryMetrics(registry: Registry, area: string): LiteQueryMetrics {
  const registers = [registry];
  const duration = new Histogram({
    name: `tonstream_${area}_liteserver_query_duration_seconds`,
    help: 'Liteserver query attempts by server, method and result (ok, error, timeout, gone: the server has no such state)',
    labelNames: ['liteserver', 'method', 'result'] as const,
    buckets: QUERY_BUCKETS_S,
    registers,
  });
  const errors = new Counter({ name: `tonstream_${area}_liteserver_errors_total`, help: 'Liteserver query attempts that brought no answer, by server and result (error, timeout, gone)', labelNames: ['liteserver', 'result'] as const, registers });
  const retries = new Counter({ name: `tonstream_${area}_liteserver_retries_total`, help: 'Query attempts after the first, by the server retried on', labelNames: ['liteserver'] as const, registers });
  const seenServers = new Set<string>();
  return {
    observeQuery(e) {
      if (!seenServers.has(e.server)) {
        // Every failure series of a server exists from its first query on, at 0: dashboards and
        // alerts then see "no errors" instead of no data.
        seenServers.add(e.server);
        for (const result of FAILED_RESULTS) errors.inc({ liteserver: e.server, result }, 0);
        retries.inc({ liteserver: e.server }, 0);
      }
      duration.observe({ liteserver: e.server, method: e.method, result: e.result }, e.durationMs / 1000);
      if (e.result !== 'ok') errors.inc({ liteserver: e.server, result: e.result });
      if (e.attempt > 0) retries.inc({ liteserver: e.server });
    },
  };
}
