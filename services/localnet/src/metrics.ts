/** The localnet process's Prometheus metrics (besides the process metrics of @tonstream/runtime). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Rounds take tens of milliseconds idle and up to seconds under heavy traffic. */
const ROUND_DURATION_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type LocalnetMetrics = ReturnType<typeof createLocalnetMetrics>;

export function createLocalnetMetrics(registry: Registry) {
  const registers = [registry];
  return {
    mcSeqno: new Gauge({ name: 'tonstream_localnet_mc_seqno', help: 'Seqno of the last masterchain block', registers }),
    transactions: new Counter({ name: 'tonstream_localnet_transactions_total', help: 'Transactions in produced blocks (all workchains)', registers }),
    roundDuration: new Histogram({ name: 'tonstream_localnet_round_duration_seconds', help: 'Time to execute and build one round of blocks', buckets: ROUND_DURATION_BUCKETS_S, registers }),
    pending: new Gauge({ name: 'tonstream_localnet_pending_messages', help: 'Messages waiting for the next round', labelNames: ['kind'] as const, registers }),
    rejected: new Counter({ name: 'tonstream_localnet_rejected_messages_total', help: 'Messages that produced no transaction (externals not accepted, emulation failures)', registers }),
    roundErrors: new Counter({ name: 'tonstream_localnet_round_errors_total', help: 'Rounds that failed', registers }),
  };
}
