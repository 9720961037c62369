import { describe, expect, it } from 'vitest';
import { type Checkpoint, CheckpointError, checkpointKey, decodeCheckpoint, encodeCheckpoint, latestCheckpoint, planStart } from './checkpoint.js';
import { createProgress } from './progress.js';

const ZS = Buffer.alloc(32, 7).toString('base64');
const cp = (mc_seqno: number): Checkpoint => ({ mc_seqno, root_hash: 'r', zero_state: ZS, written_at_ms: 1 });

describe('checkpoint codec and key', () => {
  it('keys by the zero state, backfills by their range', () => {
    expect(checkpointKey(ZS, { kind: 'live' })).toBe(`fetcher:${'07'.repeat(32)}`);
    expect(checkpointKey(ZS, { kind: 'backfill', from: 10, to: 20 })).toBe(`fetcher:${'07'.repeat(32)}:backfill:10-20`);
    expect(checkpointKey(Buffer.alloc(32, 8).toString('base64'), { kind: 'live' })).not.toBe(checkpointKey(ZS, { kind: 'live' }));
  });

  it('round-trips and rejects malformed values; a tombstone is no checkpoint', () => {
    expect(decodeCheckpoint(encodeCheckpoint(cp(42)))).toEqual(cp(42));
    expect(decodeCheckpoint(null)).toBeUndefined();
    expect(() => decodeCheckpoint(Buffer.from('nope'))).toThrow(CheckpointError);
    expect(() => decodeCheckpoint(Buffer.from('{"mc_seqno":-1,"root_hash":"r","zero_state":"z"}'))).toThrow(/lacks/);
  });

  it('latestCheckpoint() takes the last value of the key in log order, ignoring other keys', () => {
    const key = checkpointKey(ZS, { kind: 'live' });
    const log = [
      { key, value: encodeCheckpoint(cp(1)) },
      { key: 'fetcher:other', value: encodeCheckpoint(cp(99)) },
      { key: Buffer.from(key), value: encodeCheckpoint(cp(3)) },
      { key: null, value: encodeCheckpoint(cp(100)) },
    ];
    expect(latestCheckpoint(log, key)?.mc_seqno).toBe(3);
    expect(latestCheckpoint(log, 'fetcher:none')).toBeUndefined();
    expect(latestCheckpoint([...log, { key, value: null }], key)).toBeUndefined();
  });
});

describe('planStart()', () => {
  const live = { kind: 'live' } as const;
  it('resumes after a checkpoint that matches the chain', () => {
    expect(planStart({ mode: live, checkpoint: cp(41), check: 'matches', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 42, to: undefined, reason: 'checkpoint' });
  });

  it('starts at the head or at FETCHER_START_SEQNO without a checkpoint', () => {
    expect(planStart({ mode: live, checkpoint: undefined, check: 'none', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 100, to: undefined, reason: 'head' });
    expect(planStart({ mode: live, checkpoint: undefined, check: 'none', startSeqno: 1, headSeqno: 100 })).toEqual({ from: 1, to: undefined, reason: 'start_seqno' });
    expect(planStart({ mode: live, checkpoint: undefined, check: 'none', startSeqno: 0, headSeqno: 100 }).from).toBe(1);
  });

  it('starts afresh when the chain under the checkpoint changed (other root hash, or head behind it)', () => {
    expect(planStart({ mode: live, checkpoint: cp(500), check: 'differs', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 100, to: undefined, reason: 'chain_changed' });
    expect(planStart({ mode: live, checkpoint: cp(500), check: 'ahead_of_head', startSeqno: 1, headSeqno: 10 })).toEqual({ from: 1, to: undefined, reason: 'chain_changed' });
  });

  it('backfills its range, resuming from its own checkpoint', () => {
    const mode = { kind: 'backfill', from: 10, to: 20 } as const;
    expect(planStart({ mode, checkpoint: undefined, check: 'none', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 10, to: 20, reason: 'backfill' });
    expect(planStart({ mode, checkpoint: cp(14), check: 'matches', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 15, to: 20, reason: 'backfill_resumed' });
    expect(planStart({ mode, checkpoint: cp(20), check: 'matches', startSeqno: 'head', headSeqno: 100 })).toEqual({ from: 21, to: 20, reason: 'backfill_done' });
    expect(planStart({ mode, checkpoint: cp(14), check: 'differs', startSeqno: 'head', headSeqno: 100 }).from).toBe(10);
  });
});

describe('createProgress()', () => {
  it('reports rates over the interval since the last report and an ETA', () => {
    let t = 0;
    const p = createProgress(() => t);
    for (let s = 1; s <= 20; s++) p.add(s, 3, 10, 100_000, s === 5 ? 4 : 0);
    t = 10_000;
    expect(p.report(120)).toEqual({ mc_seqno: 20, target_seqno: 120, mc_blocks_per_s: 2, blocks_per_s: 6, account_states_per_s: 20, mb_per_s: 0.2, account_states_missing: 4, remaining: 100, eta_s: 50 });
    t = 20_000;
    expect(p.report(120)).toMatchObject({ mc_blocks_per_s: 0, eta_s: null, account_states_missing: 0 });
    expect(p.total(20)).toMatchObject({ mc_blocks: 20, elapsed_s: 20, mc_blocks_per_s: 1, remaining: 0, eta_s: 0 });
  });
});
