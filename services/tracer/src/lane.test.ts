import type { TraceRecord } from '@tonstream/traces';
import { describe, expect, it } from 'vitest';
import { laneOwns } from './tracer.js';

const trace = (mcSeqnoStart: number, state: 'complete' | 'broken' = 'complete') => ({ mc_seqno_start: mcSeqnoStart, trace_info: { trace_state: state } }) as TraceRecord;

describe('laneOwns()', () => {
  const lane = { from: 21, to: 39, last: 55, continuedBefore: 37 };

  it('publishes the traces rooted in its range, not those the next lane roots in the overlap', () => {
    expect([20, 21, 39, 40, 55].map((n) => laneOwns(lane, trace(n)))).toEqual([false, true, true, false, false]);
  });

  it('leaves a broken trace rooted in its first overlap seqnos to the lane below, which has it whole', () => {
    expect(laneOwns(lane, trace(21, 'broken'))).toBe(false);
    expect(laneOwns(lane, trace(36, 'broken'))).toBe(false);
    expect(laneOwns(lane, trace(37, 'broken'))).toBe(true);
    expect(laneOwns({ ...lane, continuedBefore: null }, trace(21, 'broken'))).toBe(true);
  });
});
