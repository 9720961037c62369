/** The streamer's Prometheus metrics (besides the process metrics of @tonstream/runtime). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Turning one masterchain block into events and delivering them: sub-ms on localnet. */
const BLOCK_DURATION_BUCKETS_S = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export type StreamerMetrics = ReturnType<typeof createStreamerMetrics>;

export function createStreamerMetrics(registry: Registry) {
  const registers = [registry];
  return {
    events: new Counter({ name: 'tonstream_streamer_events_total', help: 'Events emitted (before per-client matching), by stage', labelNames: ['stage'] as const, registers }),
    delivered: new Counter({ name: 'tonstream_streamer_notifications_total', help: 'Notifications queued to clients, by transport', labelNames: ['transport'] as const, registers }),
    dropped: new Counter({ name: 'tonstream_streamer_dropped_clients_total', help: 'Clients cut by the server, by reason: unsent_bytes (over STREAMER_MAX_BUFFERED_BYTES), unsent_age (older than STREAMER_MAX_UNSENT_MS), replay_lost, key_revoked', labelNames: ['reason'] as const, registers }),
    connections: new Gauge({ name: 'tonstream_streamer_connections', help: 'Open streaming connections, by transport', labelNames: ['transport'] as const, registers }),
    stalePending: new Counter({ name: 'tonstream_streamer_stale_pending_total', help: 'Pending traces not sent because their block was read first', registers }),
    refused: new Counter({ name: 'tonstream_streamer_refused_records_total', help: 'Records that failed their check and were left out', registers }),
    givenUp: new Counter({ name: 'tonstream_streamer_given_up_mc_blocks_total', help: 'Masterchain blocks emitted with only the records that arrived, after STREAMER_GIVE_UP_AFTER_MC_BLOCKS (their records were dead-lettered or refused)', registers }),
    lastMcSeqno: new Gauge({ name: 'tonstream_streamer_last_mc_seqno', help: 'Last masterchain block emitted, by stage', labelNames: ['stage'] as const, registers }),
    watermark: new Gauge({ name: 'tonstream_streamer_watermark_mc_seqno', help: 'Watermark as last read (finalized = stored up to here)', registers }),
    unfinalizedBlocks: new Gauge({ name: 'tonstream_streamer_unfinalized_blocks', help: 'Confirmed masterchain blocks waiting for the watermark', registers }),
    blockDuration: new Histogram({ name: 'tonstream_streamer_block_duration_seconds', help: 'Time to build and deliver one masterchain block of events', buckets: BLOCK_DURATION_BUCKETS_S, registers }),
  };
}
