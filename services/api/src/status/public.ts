/**
 * What `/status/data.json` shows anyone: states, never where services run or why they fail. Hosts,
 * ports, Prometheus' URL, error texts and alert summaries (their templates name instances) stay
 * with the operators: in Prometheus, in each service's own /healthcheck and in the logs.
 */
import type { HealthReport, ServiceHealth } from './health.js';
import type { StatusSnapshot } from './snapshot.js';

export type PublicHealth = {
  source: HealthReport['source'];
  services: Pick<ServiceHealth, 'name' | 'state'>[];
  alerts: { name: string; severity: string; since: string }[] | null;
  /** Set when the health source did not answer; says no more than that. */
  error?: string;
};

export type PublicSnapshot = Omit<StatusSnapshot, 'health'> & { health: PublicHealth };

export function publicSnapshot(snapshot: StatusSnapshot): PublicSnapshot {
  const h = snapshot.health;
  return {
    ...snapshot,
    health: {
      source: h.source,
      // A scrape target without a `service` label is named by its instance (host:port): not shown.
      services: h.services.map((s) => ({ name: s.name === s.instance ? 'unlabelled target' : s.name, state: s.state })),
      alerts: h.alerts && h.alerts.map((a) => ({ name: a.name, severity: a.severity, since: a.since })),
      ...(h.error === undefined ? {} : { error: 'the health source did not answer' }),
    },
  };
}
