/**
 * Prometheus metrics of a service's lease (`tonstream_lease_*`, labelled with the lease's key): the
 * observer the service hands @tonstream/lease (which itself imports no metrics library).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type LeaseMetrics = { acquired(fence: number): void; dropped(): void; renewalFailed(): void };

export function createLeaseMetrics(registry: Registry, lease: string): LeaseMetrics {
  const registers = [registry];
  const labels = { lease };
  const held = new Gauge({ name: 'tonstream_lease_held', help: 'Whether this process holds the lease (1) and works, or waits as a standby (0)', labelNames: ['lease'] as const, registers });
  const acquisitions = new Counter({ name: 'tonstream_lease_acquisitions_total', help: 'Times this process acquired the lease', labelNames: ['lease'] as const, registers });
  const renewalFailures = new Counter({ name: 'tonstream_lease_renewal_failures_total', help: 'Renewals of the held lease that brought no answer from Redis', labelNames: ['lease'] as const, registers });
  const fence = new Gauge({ name: 'tonstream_lease_fence', help: 'The fencing number of the lease this process holds (0: none)', labelNames: ['lease'] as const, registers });
  held.set(labels, 0);
  acquisitions.inc(labels, 0);
  renewalFailures.inc(labels, 0);
  fence.set(labels, 0);
  return {
    acquired(n) {
      held.set(labels, 1);
      fence.set(labels, n);
      acquisitions.inc(labels);
    },
    dropped() {
      held.set(labels, 0);
      fence.set(labels, 0);
    },
    renewalFailed: () => renewalFailures.inc(labels),
  };
}
