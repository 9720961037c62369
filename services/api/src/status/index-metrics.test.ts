import type { Watermark } from '@tonstream/store';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { IndexState } from '../index-state.js';
import { registerIndexMetrics } from './index-metrics.js';

/** An index whose watermark reads are answered by the test, one at a time. */
function controlledIndex() {
  const pending: ((w: Watermark) => void)[] = [];
  const index: IndexState = {
    watermark: () => new Promise<Watermark>((resolve) => pending.push(resolve)),
    traces: async () => null,
    floor: async () => null,
  };
  return { index, answer: (w: Watermark) => pending.splice(0).forEach((resolve) => resolve(w)), reads: () => pending.length };
}

describe('index metrics', () => {
  it('a scrape reports the last watermark when ClickHouse does not answer in time, and shares the read still running', async () => {
    const { index, answer, reads } = controlledIndex();
    const registry = new Registry();
    registerIndexMetrics(registry, index, () => 1_500_000);

    const first = registry.metrics();
    answer({ mc_seqno: 7, gen_utime: 1_000 });
    expect(await first).toMatch(/^tonstream_api_index_mc_seqno 7$/m);
    await new Promise((resolve) => setImmediate(resolve)); // that read is over

    // ClickHouse stalls: the scrape still completes, with the values it last read.
    const started = Date.now();
    const text = await registry.metrics();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(text).toMatch(/^tonstream_api_index_mc_seqno 7$/m);
    expect(text).toMatch(/^tonstream_api_index_lag_seconds 500$/m);
    expect(text).toMatch(/^tonstream_api_clickhouse_up 1$/m);
    expect(reads()).toBe(1);

    // The next scrape joins that read instead of starting another; its answer shows up.
    const next = registry.metrics();
    expect(reads()).toBe(1);
    answer({ mc_seqno: 9, gen_utime: 1_400 });
    const after = await next;
    expect(after).toMatch(/^tonstream_api_index_mc_seqno 9$/m);
    expect(after).toMatch(/^tonstream_api_index_lag_seconds 100$/m);
  });
});
