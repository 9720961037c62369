import { describe, expect, it } from 'vitest';
import { advanceTracesWatermark, type TraceBatchProgress } from './trace-progress.js';

/** Batch `n` (covering `first`..n), announcing `traces` and `actions`, all stored unless `stored` says otherwise. */
function batch(n: number, opts: { first?: number; traces?: number; actions?: number; stored?: { traces: number; actions: number }; dead?: number } = {}): TraceBatchProgress {
  const traces = opts.traces ?? 2;
  const actions = opts.actions ?? 3;
  return { mc_seqno: n, mark: { first_mc_seqno: opts.first ?? n, traces, actions }, stored: opts.stored ?? { traces, actions }, dead: opts.dead ?? 0 };
}

describe('advanceTracesWatermark()', () => {
  it('moves over every complete batch that follows it, in order', () => {
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [batch(7), batch(5), batch(6)])).toEqual({ watermark: { mc_seqno: 7 }, waiting: null, stuck: false });
  });

  it('stops at a batch whose traces or actions are not all stored', () => {
    const actionsMissing = batch(6, { stored: { traces: 2, actions: 0 } });
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [batch(5), actionsMissing, batch(7)])).toEqual({
      watermark: { mc_seqno: 5 },
      waiting: 'trace batch 6: 2 of 2 traces and 0 of 3 actions stored',
      stuck: false,
    });
    const tracesMissing = batch(5, { stored: { traces: 1, actions: 3 } });
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [tracesMissing]).watermark).toEqual({ mc_seqno: 4 });
  });

  it('stops where no stored mark covers the next seqno, and passes a gap a mark covers', () => {
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [batch(6)])).toEqual({ watermark: { mc_seqno: 4 }, waiting: 'masterchain block 5: no trace batch mark stored yet', stuck: false });
    // The tracer published nothing for 5 (an empty or given-up block) and said so: its batch 6 covers 5..6.
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [batch(6, { first: 5 })]).watermark).toEqual({ mc_seqno: 6 });
    // A tracer that began again without state covers everything below its first batch.
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [batch(90, { first: 0 })]).watermark).toEqual({ mc_seqno: 90 });
  });

  it('counts dead-lettered records as stored (they never come), and says so while waiting', () => {
    expect(advanceTracesWatermark(null, 5, [batch(5, { stored: { traces: 2, actions: 3 }, dead: 1 })]).watermark).toEqual({ mc_seqno: 5 });
    expect(advanceTracesWatermark(null, 5, [batch(5, { stored: { traces: 1, actions: 3 }, dead: 1 })]).waiting).toBe('trace batch 5: 1 of 2 traces and 3 of 3 actions stored (1 of its records are in the dead-letter topic)');
  });

  it('begins at `start` when there is no watermark yet, whatever that batch covers', () => {
    expect(advanceTracesWatermark(null, 10, [batch(10, { first: 0 }), batch(11)]).watermark).toEqual({ mc_seqno: 11 });
    expect(advanceTracesWatermark(null, 10, [batch(10, { stored: { traces: 0, actions: 0 } })]).watermark).toBeNull();
    // Batches below the start (a tracer run before the one the index starts with) are not counted.
    expect(advanceTracesWatermark(null, 10, [batch(8, { stored: { traces: 0, actions: 0 } }), batch(10)]).watermark).toEqual({ mc_seqno: 10 });
  });

  it('ignores a batch whose mark is not stored (its receipts alone say nothing)', () => {
    const unmarked: TraceBatchProgress = { mc_seqno: 5, stored: { traces: 2, actions: 0 }, dead: 0 };
    expect(advanceTracesWatermark({ mc_seqno: 4 }, 0, [unmarked, batch(6)])).toEqual({ watermark: { mc_seqno: 4 }, waiting: 'masterchain block 5: no trace batch mark stored yet', stuck: false });
  });
});
