/** The fetcher's Prometheus metrics, `tonstream_fetcher_*`, in one place. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueryEvent, QueryResult } from '@tonstream/lite-client';

/** Liteserver round trips: sub-ms on localhost, seconds for a multi-MB mainnet block over pure-JS AES. */
const QUERY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const FAILED_RESULTS: readonly Exclude<QueryResult, 'ok'>[] = ['error', 'timeout', 'gone'];
const PUBLISH_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type FetcherMetrics = ReturnType<typeof createFetcherMetrics>;

export function createFetcherMetrics(registry: Registry) {
  const registers = [registry];
  const m = {
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
    queryDuration: new Histogram({
      name: 'tonstream_fetcher_liteserver_query_duration_seconds',
      help: 'Liteserver query attempts by server, method and result (ok, error, timeout, gone: the server has no such state)',
      labelNames: ['liteserver', 'method', 'result'] as const,
      buckets: QUERY_BUCKETS_S,
      registers,
    }),
    liteErrors: new Counter({ name: 'tonstream_fetcher_liteserver_errors_total', help: 'Liteserver query attempts that brought no answer, by server and result (error, timeout, gone)', labelNames: ['liteserver', 'result'] as const, registers }),
    liteRetries: new Counter({ name: 'tonstream_fetcher_liteserver_retries_total', help: 'Query attempts after the first, by the server retried on', labelNames: ['liteserver'] as const, registers }),
    jobRetries: new Counter({ name: 'tonstream_fetcher_mc_block_retries_total', help: 'Masterchain blocks whose preparation failed and was started again', registers }),
    publishDuration: new Histogram({ name: 'tonstream_fetcher_publish_duration_seconds', help: 'Kafka send of one masterchain block with its shard blocks, until acknowledged', buckets: PUBLISH_BUCKETS_S, registers }),
    publishErrors: new Counter({ name: 'tonstream_fetcher_publish_errors_total', help: 'Failed Kafka sends (retried)', registers }),
  };
  const seenServers = new Set<string>();
  return {
    ...m,
    /** The liteserver pool's QueryObserver (@tonstream/lite-client). */
    observeQuery(e: QueryEvent) {
      if (!seenServers.has(e.server)) {
        // Every failure series of a server exists from its first query on, at 0: dashboards and
        // alerts then see "no errors" instead of no data.
        seenServers.add(e.server);
        for (const result of FAILED_RESULTS) m.liteErrors.inc({ liteserver: e.server, result }, 0);
        m.liteRetries.inc({ liteserver: e.server }, 0);
      }
      m.queryDuration.observe({ liteserver: e.server, method: e.method, result: e.result }, e.durationMs / 1000);
      if (e.result !== 'ok') m.liteErrors.inc({ liteserver: e.server, result: e.result });
      if (e.attempt > 0) m.liteRetries.inc({ liteserver: e.server });
    },
  };
}
