/** The fetcher's Prometheus metrics, `tonstream_fetcher_*`, in one place. */
import { createLiteQueryMetrics } from '@tonstream/runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const PUBLISH_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type FetcherMetrics = ReturnType<typeof createFetcherMetrics>;

export function createFetcherMetrics(registry: Registry) {
  const registers = [registry];
  return {
    headSeqno: new Gauge({ name: 'tonstream_fetcher_masterchain_head_seqno', help: 'Newest masterchain seqno the liteservers report', registers }),
    publishedSeqno: new Gauge({ name: 'tonstream_fetcher_published_mc_seqno', help: 'Last masterchain seqno whose blocks Kafka acknowledged', registers }),
    checkpointSeqno: new Gauge({ name: 'tonstream_fetcher_checkpoint_mc_seqno', help: 'Masterchain seqno of the last checkpoint written', registers }),
    lagBlocks: new Gauge({ name: 'tonstream_fetcher_lag_blocks', help: 'Masterchain blocks between the head and the last published one', registers }),
    lagSeconds: new Gauge({ name: 'tonstream_fetcher_lag_seconds', help: 'gen_utime of the head minus gen_utime of the last published masterchain block', registers }),
    blocks: new Counter({ name: 'tonstream_fetcher_blocks_total', help: 'Blocks published, by workchain', labelNames: ['workchain'] as const, registers }),
    blockBytes: new Counter({ name: 'tonstream_fetcher_block_bytes_total', help: 'Block BoC bytes published, by workchain', labelNames: ['workchain'] as const, registers }),
    accountStates: new Counter({ name: 'tonstream_fetcher_account_states_total', help: 'Account states published', registers }),
    missingStates: new Counter({ name: 'tonstream_fetcher_account_states_missing_total', help: 'Touched accounts published without a state because every configured liteserver answered that it has none', registers }),
    accountStateBytes: new Counter({ name: 'tonstream_fetcher_account_state_bytes_total', help: 'Account state BoC bytes published', registers }),
    jobRetries: new Counter({ name: 'tonstream_fetcher_mc_block_retries_total', help: 'Masterchain blocks whose preparation failed and was started again', registers }),
    publishDuration: new Histogram({ name: 'tonstream_fetcher_publish_duration_seconds', help: 'Kafka send of one masterchain block with its shard blocks, until acknowledged', buckets: PUBLISH_BUCKETS_S, registers }),
    publishErrors: new Counter({ name: 'tonstream_fetcher_publish_errors_total', help: 'Failed Kafka sends (retried)', registers }),
    /** tonstream_fetcher_liteserver_*: the liteserver pool's QueryObserver (@tonstream/lite-client). */
    ...createLiteQueryMetrics(registry, 'fetcher'),
  };
}
