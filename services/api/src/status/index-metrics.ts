/**
 * The index as API clients see it, for Prometheus: read from ClickHouse at scrape time, so it stays
 * true while the writer is down (the "indexer stalled" alert relies on that). A scrape waits at most
 * READ_BUDGET_MS for the read and otherwise reports the last one: a slow ClickHouse must not make the
 * whole target time out (and look down) in Prometheus.
 */
import type { Watermark } from '@tonstream/store';
import { Gauge, type Registry } from 'prom-client';
import type { IndexState } from '../index-state.js';

const READ_BUDGET_MS = 250;

/**
 * `holes`: how many seqnos of backfilled ranges their newest gap check found missing (history.ts).
 * @default none: the gauge reads 0
 */
export function registerIndexMetrics(registry: Registry, index: IndexState, now: () => number = Date.now, holes: () => Promise<number> = async () => 0): void {
  let last: Watermark | null = null;
  let floor: number | null = null;
  let holeCount = 0;
  let reachable = 0;
  // One read at a time, shared by the gauges (prom-client collects each one separately) and
  // by a later scrape while it is still running.
  let scrape: Promise<void> | undefined;
  const start = () =>
    (scrape ??= Promise.all([index.watermark(), index.floor(), holes()])
      .then(
        ([w, f, h]) => {
          last = w;
          floor = f;
          holeCount = h;
          reachable = 1;
        },
        // The last known watermark stays: the index did not move while ClickHouse was away.
        () => {
          reachable = 0;
        },
      )
      .finally(() => setImmediate(() => (scrape = undefined))));
  const read = () => {
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, READ_BUDGET_MS)));
    return Promise.race([start(), budget]).finally(() => clearTimeout(timer));
  };
  const registers = [registry];
  new Gauge({
    name: 'tonstream_api_index_mc_seqno',
    help: 'The watermark the API serves (0 before anything is indexed), read from ClickHouse at scrape time',
    registers,
    async collect() {
      await read();
      this.set(last?.mc_seqno ?? 0);
    },
  });
  new Gauge({
    name: 'tonstream_api_index_lag_seconds',
    help: 'Now minus gen_utime of the masterchain block at the watermark (NaN before anything is indexed)',
    registers,
    async collect() {
      await read();
      this.set(last ? Math.max(0, now() / 1000 - last.gen_utime) : NaN);
    },
  });
  new Gauge({
    name: 'tonstream_api_index_history_floor_seqno',
    help: 'The history floor: the lowest masterchain seqno the API serves (0: no floor, every stored block up to the watermark)',
    registers,
    async collect() {
      await read();
      this.set(floor ?? 0);
    },
  });
  new Gauge({
    name: 'tonstream_api_index_history_holes',
    help: 'Masterchain seqnos of backfilled ranges that their newest gap check found not whole (npm run backfill refetches them; the floor stays above)',
    registers,
    async collect() {
      await read();
      this.set(holeCount);
    },
  });
  new Gauge({
    name: 'tonstream_api_clickhouse_up',
    help: '1 when the API\'s last read of the watermark from ClickHouse succeeded, else 0',
    registers,
    async collect() {
      await read();
      this.set(reachable);
    },
  });
}
