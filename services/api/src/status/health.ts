/**
 * Each service's health for the status page. With Prometheus: its `up` series of the tonstream job
 * (the scrape the alerts use), what its /healthcheck said at that scrape (`tonstream_health_status`,
 * packages/runtime) and the alerts firing. Without: each metrics server's /healthcheck (`ok` /
 * `degraded` / `error` with reasons), asked directly.
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

/** `tonstream_health_status` values (HEALTH_LEVELS of @tonstream/runtime). */
const HEALTH_STATES: Readonly<Record<string, ServiceHealth['state']>> = { '0': 'ok', '1': 'degraded', '2': 'error' };

/** A scraped service's state: `down` if Prometheus cannot scrape it, else what its /healthcheck said (`ok` without one, e.g. the API). */
function scrapedState(up: string, health: string | undefined): Pick<ServiceHealth, 'state' | 'reasons'> {
  if (up !== '1') return { state: 'down', reasons: ['Prometheus cannot scrape its /metrics'] };
  const state = (health && HEALTH_STATES[health]) || 'ok';
  return { state, reasons: state === 'ok' ? [] : [`its /healthcheck says ${state}`] };
}

async function fromPrometheus(base: string): Promise<HealthReport> {
  const query = (q: string) => promGet<{ result: PromSample[] }>(base, `/api/v1/query?query=${encodeURIComponent(q)}`);
  const [up, health, alerts] = await Promise.all([query('up{job="tonstream"}'), query('tonstream_health_status{job="tonstream"}'), promGet<{ alerts: PromAlert[] }>(base, '/api/v1/alerts')]);
  const healthOf = new Map(health.result.map((s) => [s.metric.instance, s.value[1]]));
  const services = up.result
    .map((s): ServiceHealth => ({ name: s.metric.service ?? s.metric.instance, instance: s.metric.instance, ...scrapedState(s.value[1], healthOf.get(s.metric.instance)) }))
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
