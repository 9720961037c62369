import { createLiteQueryMetrics } from '@tonstream/runtime';
import { Counter, Histogram, type Registry } from 'prom-client';

export type EmulatorMetrics = ReturnType<typeof createEmulatorMetrics>;

export function createEmulatorMetrics(registry: Registry) {
  return {
    externals: new Counter({
      name: 'tonstream_emulator_externals_total',
      help: 'Externals consumed, by outcome: emulated, rejected (the account refused it), duplicate, rate_limited, invalid, failed',
      labelNames: ['result'],
      registers: [registry],
    }),
    emulationSeconds: new Histogram({
      name: 'tonstream_emulator_emulation_duration_seconds',
      help: 'Time to emulate one trace (state fetches included)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    readySeconds: new Histogram({
      name: 'tonstream_emulator_received_to_stored_seconds',
      help: 'From the external arriving (its received_at) to its pending trace in Redis',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    traceTransactions: new Histogram({
      name: 'tonstream_emulator_trace_transactions',
      help: 'Transactions per emulated trace',
      buckets: [1, 2, 3, 5, 8, 13, 21, 50, 100, 256],
      registers: [registry],
    }),
    expired: new Counter({
      name: 'tonstream_emulator_expired_traces_total',
      help: 'Pending traces removed by their TTL: the external never landed (or its confirmed trace was not indexed in time)',
      registers: [registry],
    }),
    confirmed: new Counter({
      name: 'tonstream_emulator_confirmed_traces_total',
      help: 'Pending traces removed because the index serves their confirmed trace',
      registers: [registry],
    }),
    redisErrors: new Counter({
      name: 'tonstream_emulator_redis_errors_total',
      help: 'Failed Redis writes and sweeps (retried)',
      registers: [registry],
    }),
    streamErrors: new Counter({
      name: 'tonstream_emulator_stream_errors_total',
      help: 'Pending traces (or invalidations) not published on ton.pending_traces for the streamer',
      registers: [registry],
    }),
    /** tonstream_emulator_liteserver_*: the liteserver pool's QueryObserver (@tonstream/lite-client). */
    lite: createLiteQueryMetrics(registry, 'emulator'),
  };
}
