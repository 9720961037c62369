/** The decoder's Prometheus metrics (besides the process metrics of @tonstream/runtime). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DecodeErrorKind } from './decode-message.js';

/** A block decodes in about a millisecond (empty) to a few hundred (5 MB mainnet blocks). */
const DECODE_DURATION_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Producing a chunk of records waits for acks from all in-sync replicas (one locally). */
const PRODUCE_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Every `kind` of tonstream_decoder_errors_total: each series exists from the start, at 0. */
const ERROR_KINDS = Object.keys({ codec: 1, boc: 1, tlb: 1, worker: 1, unexpected: 1, produce: 1 } satisfies Record<DecodeErrorKind | 'produce', 1>);

export type DecoderMetrics = ReturnType<typeof createDecoderMetrics>;

export function createDecoderMetrics(registry: Registry) {
  const registers = [registry];
  const errors = new Counter({ name: 'tonstream_decoder_errors_total', help: 'Raw block messages that failed to decode (sent to the dead-letter topic), by kind', labelNames: ['kind'] as const, registers });
  for (const kind of ERROR_KINDS) errors.inc({ kind }, 0);
  return {
    blocks: new Counter({ name: 'tonstream_decoder_blocks_total', help: 'Blocks decoded and published', registers }),
    transactions: new Counter({ name: 'tonstream_decoder_transactions_total', help: 'Transactions decoded and published', registers }),
    decodeDuration: new Histogram({ name: 'tonstream_decoder_decode_duration_seconds', help: 'Time to decode one raw block into records', buckets: DECODE_DURATION_BUCKETS_S, registers }),
    produceDuration: new Histogram({ name: 'tonstream_decoder_produce_duration_seconds', help: 'Time from sending a chunk of records to its last ack (block meta included)', buckets: PRODUCE_DURATION_BUCKETS_S, registers }),
    skippedStates: new Counter({ name: 'tonstream_decoder_account_states_skipped_total', help: 'Account states that could not be read and were left out of their block', registers }),
    errors,
    consumerLag: new Gauge({ name: 'tonstream_decoder_consumer_lag', help: 'Messages between the committed offset and the end of each raw block partition', labelNames: ['topic', 'partition'] as const, registers }),
    lastMcSeqno: new Gauge({ name: 'tonstream_decoder_last_mc_seqno', help: 'Highest masterchain seqno among published blocks', registers }),
  };
}
