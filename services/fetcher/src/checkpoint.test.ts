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
  const base = { mode: live, startSeqno: 'head' as const, headSeqno: 100, reset: false, localnet: false, key: 'fetcher:07' };
  const matches = { kind: 'matches' } as const;
  const differs = { kind: 'differs', field: 'root_hash', checkpoint: 'OLDROOT=', chain: 'NEWROOT=' } as const;
  const ahead = { kind: 'ahead_of_head' } as const;
  const none = { kind: 'none' } as const;

  it('resumes after a checkpoint that matches the chain', () => {
    expect(planStart({ ...base, checkpoint: cp(41), check: matches })).toEqual({ kind: 'start', plan: { from: 42, to: undefined, reason: 'checkpoint' } });
  });

  it('starts at the head or at FETCHER_START_SEQNO without a checkpoint', () => {
    expect(planStart({ ...base, checkpoint: undefined, check: none })).toEqual({ kind: 'start', plan: { from: 100, to: undefined, reason: 'head' } });
    expect(planStart({ ...base, checkpoint: undefined, check: none, startSeqno: 1 })).toEqual({ kind: 'start', plan: { from: 1, to: undefined, reason: 'start_seqno' } });
    expect(planStart({ ...base, checkpoint: undefined, check: none, startSeqno: 0 })).toMatchObject({ plan: { from: 1 } });
  });

  it('on a real network, stops at a checkpoint of another chain, naming both root hashes, the seqno and the way out', () => {
    const d = planStart({ ...base, checkpoint: cp(50), check: differs, startSeqno: 7 });
    expect(d.kind).toBe('stop');
    const message = (d as { message: string }).message;
    for (const part of ['fetcher:07', 'seqno 50', 'OLDROOT=', 'NEWROOT=', '--reset', 'FETCHER_GLOBAL_CONFIG', 'FETCHER_START_SEQNO=7']) expect(message).toContain(part);
    const zs = planStart({ ...base, checkpoint: cp(50), check: { kind: 'differs', field: 'zero_state', checkpoint: 'ZS1', chain: 'ZS2' } });
    expect(zs).toMatchObject({ kind: 'stop', message: expect.stringContaining('zero state ZS1') });
  });

  it('on a real network, waits for the head to reach a checkpoint above it', () => {
    const d = planStart({ ...base, checkpoint: cp(500), check: ahead });
    expect(d).toMatchObject({ kind: 'wait_for_head', seqno: 500 });
    expect((d as { message: string }).message).toContain('above the liteservers\' head 100');
  });

  it('on the local network, a checkpoint of another chain (or above the head) means it was reset: start from its genesis', () => {
    expect(planStart({ ...base, checkpoint: cp(50), check: differs, localnet: true, startSeqno: 1 })).toEqual({ kind: 'start', plan: { from: 1, to: undefined, reason: 'localnet_reset' } });
    expect(planStart({ ...base, checkpoint: cp(500), check: ahead, localnet: true })).toEqual({ kind: 'start', plan: { from: 100, to: undefined, reason: 'localnet_reset' } });
    expect(planStart({ ...base, checkpoint: cp(41), check: matches, localnet: true })).toMatchObject({ plan: { from: 42, reason: 'checkpoint' } });
  });

  it('--reset ignores any checkpoint and starts from FETCHER_START_SEQNO or the head', () => {
    for (const check of [matches, differs, ahead]) {
      expect(planStart({ ...base, checkpoint: cp(50), check, reset: true, startSeqno: 3 })).toEqual({ kind: 'start', plan: { from: 3, to: undefined, reason: 'reset' } });
    }
    expect(planStart({ ...base, checkpoint: cp(50), check: differs, reset: true })).toMatchObject({ plan: { from: 100, reason: 'reset' } });
  });

  it('backfills its range, resuming from its own checkpoint; redoes the range when it cannot trust it', () => {
    const mode = { kind: 'backfill', from: 10, to: 20 } as const;
    expect(planStart({ ...base, mode, checkpoint: undefined, check: none })).toEqual({ kind: 'start', plan: { from: 10, to: 20, reason: 'backfill' } });
    expect(planStart({ ...base, mode, checkpoint: cp(14), check: matches })).toEqual({ kind: 'start', plan: { from: 15, to: 20, reason: 'backfill_resumed' } });
    expect(planStart({ ...base, mode, checkpoint: cp(20), check: matches })).toEqual({ kind: 'start', plan: { from: 21, to: 20, reason: 'backfill_done' } });
    expect(planStart({ ...base, mode, checkpoint: cp(14), check: differs })).toMatchObject({ plan: { from: 10 } });
    expect(planStart({ ...base, mode, checkpoint: cp(14), check: matches, reset: true })).toMatchObject({ plan: { from: 10 } });
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
