/**
 * Each service's health for the status page. With Prometheus: its `up` series of the tonstream job
 * (the scrape the alerts use) and the alerts firing. Without: each metrics server's /healthcheck
 * (`ok` / `degraded` / `error` with reasons, packages/runtime), asked directly.
 */
import type { StatusConfig } from './config.js';

/** Bound on each probe: the page must answer even when a service hangs. */
const PROBE_TIMEOUT_MS = 1_500;

export type ServiceHealth = { name: string; instance: string; state: 'ok' | 'degraded' | 'error' | 'down'; reasons: string[] };
export type FiringAlert = { name: string; severity: string; summary: string; since: string };
export type HealthReport = { source: 'prometheus' | 'healthcheck'; services: ServiceHealth[]; alerts: FiringAlert[] | null; error?: string };

type PromAnswer<T> = { status: string; data: T; error?: string };
type PromSample = { metric: Record<string, string>; value: [number, string] };
type PromAlert = { labels: Record<string, string>; annotations: Record<string, string>; state: string; activeAt: string };

async function promGet<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  const body = (await res.json()) as PromAnswer<T>;
  if (body.status !== 'success') throw new Error(`Prometheus: ${body.error ?? res.status}`);
  return body.data;
}

async function fromPrometheus(base: string): Promise<HealthReport> {
  const [up, alerts] = await Promise.all([
    promGet<{ result: PromSample[] }>(base, `/api/v1/query?query=${encodeURIComponent('up{job="tonstream"}')}`),
    promGet<{ alerts: PromAlert[] }>(base, '/api/v1/alerts'),
  ]);
  const services = up.result
    .map((s): ServiceHealth => ({
      name: s.metric.service ?? s.metric.instance,
      instance: s.metric.instance,
      state: s.value[1] === '1' ? 'ok' : 'down',
      reasons: s.value[1] === '1' ? [] : ['Prometheus cannot scrape its /metrics'],
    }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.instance.localeCompare(b.instance));
  const firing = alerts.alerts
    .filter((a) => a.state === 'firing')
    .map((a) => ({ name: a.labels.alertname, severity: a.labels.severity ?? '', summary: a.annotations.summary ?? '', since: a.activeAt }));
  return { source: 'prometheus', services, alerts: firing };
}

async function probe(name: string, url: string): Promise<ServiceHealth> {
  const instance = new URL(url).host;
  try {
    const res = await fetch(`${url}/healthcheck`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await res.json()) as { status?: string; reasons?: unknown };
    const state = body.status === 'ok' || body.status === 'degraded' || body.status === 'error' ? body.status : 'error';
    const reasons = Array.isArray(body.reasons) ? body.reasons.map(String) : [];
    return { name, instance, state, reasons };
  } catch (err) {
    return { name, instance, state: 'down', reasons: [(err as Error).message] };
  }
}

export async function readHealth(config: StatusConfig): Promise<HealthReport> {
  if (config.prometheusUrl) {
    try {
      return await fromPrometheus(config.prometheusUrl);
    } catch (err) {
      return { source: 'prometheus', services: [], alerts: null, error: `${config.prometheusUrl}: ${(err as Error).message}` };
    }
  }
  return { source: 'healthcheck', services: await Promise.all(config.services.map((s) => probe(s.name, s.url))), alerts: null };
}
