import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type MetadataMetrics = ReturnType<typeof createMetadataMetrics>;

export function createMetadataMetrics(registry: Registry) {
  return {
    discovered: new Counter({ name: 'tonstream_metadata_discovered_total', help: 'Off-chain URIs found in token states and queued for the first time', registers: [registry] }),
    fetched: new Counter({ name: 'tonstream_metadata_fetched_total', help: 'URIs fetched and cached (a JSON object)', registers: [registry] }),
    attemptErrors: new Counter({
      name: 'tonstream_metadata_attempt_errors_total',
      help: 'Failed fetch attempts by reason (timeout, network, http_<status>, too_large, bad_json, not_object, too_many_redirects, bad_redirect, bad_uri, private_address)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    failed: new Counter({ name: 'tonstream_metadata_failed_total', help: 'URIs marked failed (not tried again), by reason', labelNames: ['reason'], registers: [registry] }),
    queue: new Gauge({ name: 'tonstream_metadata_queue', help: 'URIs waiting in the worker (due now or later), in flight excluded', registers: [registry] }),
    inFlight: new Gauge({ name: 'tonstream_metadata_in_flight', help: 'Fetches in flight', registers: [registry] }),
    unflushed: new Gauge({ name: 'tonstream_metadata_unflushed', help: 'Fetch outcomes waiting to be written to ClickHouse (fetching pauses at METADATA_MAX_UNFLUSHED)', registers: [registry] }),
    fetchSeconds: new Histogram({
      name: 'tonstream_metadata_fetch_duration_seconds',
      help: 'Duration of one fetch attempt, redirects and body included',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    cursor: new Gauge({ name: 'tonstream_metadata_discovery_mc_seqno', help: 'Masterchain seqno up to which token states were scanned for URIs', registers: [registry] }),
    storeErrors: new Counter({ name: 'tonstream_metadata_store_errors_total', help: 'Failed ClickHouse reads and writes (retried on the next poll)', registers: [registry] }),
  };
}
