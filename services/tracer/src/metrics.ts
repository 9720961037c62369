/** The tracer's Prometheus metrics (besides the process metrics of @tonstream/runtime). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** One masterchain block: join, assembly, classification, publish and the Redis save; ms on localnet, more on busy mainnet blocks. */
const BLOCK_DURATION_BUCKETS_S = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type TracerMetrics = ReturnType<typeof createTracerMetrics>;

export function createTracerMetrics(registry: Registry) {
  const registers = [registry];
  return {
    traces: new Counter({ name: 'tonstream_tracer_traces_total', help: 'Traces published, by state: complete, or incomplete (given up on after the bound)', labelNames: ['state'] as const, registers }),
    incomplete: new Counter({ name: 'tonstream_tracer_incomplete_traces_total', help: 'Traces that did not complete within TRACER_INCOMPLETE_AFTER_MC_BLOCKS and were published as incomplete', registers }),
    actions: new Counter({ name: 'tonstream_tracer_actions_total', help: 'Actions published', registers }),
    classifyFailures: new Counter({ name: 'tonstream_tracer_classify_failures_total', help: 'Traces whose classification threw (published with classification_state failed, no actions)', registers }),
    transactions: new Counter({ name: 'tonstream_tracer_transactions_total', help: 'Transactions assembled into traces', registers }),
    pendingTraces: new Gauge({ name: 'tonstream_tracer_pending_traces', help: 'Traces waiting for messages to be delivered (held in Redis)', registers }),
    lastMcSeqno: new Gauge({ name: 'tonstream_tracer_last_mc_seqno', help: 'Last masterchain seqno whose traces are published and whose state is saved', registers }),
    givenUp: new Counter({ name: 'tonstream_tracer_given_up_mc_blocks_total', help: 'Masterchain blocks traced with only the records that arrived, after TRACER_GIVE_UP_AFTER_MC_BLOCKS (their records were dead-lettered or refused)', registers }),
    waitingBlocks: new Gauge({ name: 'tonstream_tracer_waiting_mc_blocks', help: 'Masterchain blocks whose records are held in memory, waiting for their turn', registers }),
    redisUp: new Gauge({ name: 'tonstream_tracer_redis_up', help: '1 while Redis is connected and answers PING in time, else 0 (state saves wait)', registers }),
    blockDuration: new Histogram({ name: 'tonstream_tracer_block_duration_seconds', help: 'Time to process one masterchain block (assembly, classification, publish, state save)', buckets: BLOCK_DURATION_BUCKETS_S, registers }),
  };
}
