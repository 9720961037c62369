/** The writer's Prometheus metrics (besides the process metrics of @tonstream/runtime). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Batches range from a handful of records (quiet chain, 200 ms flushes) to WRITER_BATCH_ROWS. */
const BATCH_RECORDS_BUCKETS = [1, 10, 50, 100, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000];
/** A 10k-record batch takes tens to hundreds of ms on a local ClickHouse; retries stretch it to minutes. */
const FLUSH_DURATION_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** From the fetcher seeing a block to its meta row stored: sub-second when caught up, hours when catching up. */
const FRESHNESS_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86_400];

export type WriterMetrics = ReturnType<typeof createWriterMetrics>;

export function createWriterMetrics(registry: Registry) {
  const registers = [registry];
  return {
    rows: new Counter({ name: 'tonstream_writer_rows_total', help: 'Rows acknowledged by ClickHouse, by table', labelNames: ['table'] as const, registers }),
    batchRecords: new Histogram({ name: 'tonstream_writer_batch_records', help: 'Records (Kafka messages) per ClickHouse batch', buckets: BATCH_RECORDS_BUCKETS, registers }),
    flushDuration: new Histogram({ name: 'tonstream_writer_flush_duration_seconds', help: 'Time to store one batch in every table, retries included', buckets: FLUSH_DURATION_BUCKETS_S, registers }),
    lastMcSeqno: new Gauge({ name: 'tonstream_writer_last_indexed_mc_seqno', help: 'The watermark: highest masterchain seqno whose blocks, and all below it, have every record stored', registers }),
    watermarkUtime: new Gauge({ name: 'tonstream_writer_watermark_gen_utime_seconds', help: 'gen_utime of the masterchain block at the watermark (chain time); time() minus this is how far the index trails the chain', registers }),
    tracesMcSeqno: new Gauge({ name: 'tonstream_writer_traces_mc_seqno', help: 'The traces watermark: highest masterchain seqno up to which every tracer batch has its traces and actions stored', registers }),
    watermarkStuck: new Gauge({ name: 'tonstream_writer_watermark_stuck', help: '1 when the block after the watermark has dead-lettered records and cannot complete by itself', registers }),
    indexedFreshness: new Histogram({ name: 'tonstream_writer_indexed_freshness_seconds', help: 'Time from the fetcher seeing a masterchain block to the watermark reaching it (what API clients see)', buckets: FRESHNESS_BUCKETS_S, registers }),
    lagBlocks: new Gauge({ name: 'tonstream_writer_lag_blocks', help: 'Masterchain blocks consumed but not stored yet (max seen minus max stored)', registers }),
    lagSeconds: new Gauge({ name: 'tonstream_writer_lag_seconds', help: 'Age (since the fetcher saw it) of the oldest consumed block not stored yet; 0 when caught up', registers }),
    freshness: new Histogram({ name: 'tonstream_writer_freshness_seconds', help: 'Time from the fetcher seeing a block to ClickHouse acknowledging its meta row', buckets: FRESHNESS_BUCKETS_S, registers }),
    consumerLag: new Gauge({ name: 'tonstream_writer_consumer_lag', help: 'Messages between the committed offset and the end of each consumed partition', labelNames: ['topic', 'partition'] as const, registers }),
    clickhouseUp: new Gauge({ name: 'tonstream_writer_clickhouse_up', help: '1 when the last ClickHouse write succeeded, 0 while retrying', registers }),
    retries: new Counter({ name: 'tonstream_writer_write_retries_total', help: 'Failed ClickHouse write attempts that were retried', registers }),
    hotTierFailures: new Counter({ name: 'tonstream_writer_hot_tier_failures_total', help: 'Batches whose hot tier write failed (each marks the tier broken until it is rebuilt)', registers }),
    deadLetters: new Counter({ name: 'tonstream_writer_dead_letters_total', help: 'Consumed records (or messages without a value) refused and sent to the records dead-letter topic, by source topic', labelNames: ['topic'] as const, registers }),
  };
}
