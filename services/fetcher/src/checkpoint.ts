/**
 * The fetcher's checkpoint: the last masterchain block whose blocks Kafka acknowledged, in the
 * compacted checkpoints topic. The key names the chain by its zero state, so a fetcher pointed at
 * another network never resumes from this one's position; the value carries the block's root hash,
 * so a local chain started afresh with the same zero state is noticed too.
 */

export type Checkpoint = {
  mc_seqno: number;
  /** Root hash of that masterchain block, base64. */
  root_hash: string;
  /** Masterchain zero state root hash, base64. */
  zero_state: string;
  written_at_ms: number;
};

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** Backfill runs keep their own checkpoint so they never move the live fetcher's position. */
export type RunMode = { kind: 'live' } | { kind: 'backfill'; from: number; to: number };

export function checkpointKey(zeroState: string, mode: RunMode): string {
  const chain = Buffer.from(zeroState, 'base64').toString('hex');
  return mode.kind === 'live' ? `fetcher:${chain}` : `fetcher:${chain}:backfill:${mode.from}-${mode.to}`;
}

export function encodeCheckpoint(c: Checkpoint): Buffer {
  return Buffer.from(JSON.stringify(c));
}

export function decodeCheckpoint(value: Uint8Array | null | undefined): Checkpoint | undefined {
  if (!value || value.length === 0) return undefined; // a tombstone
  let c: Partial<Checkpoint>;
  try {
    c = JSON.parse(Buffer.from(value).toString('utf8'));
  } catch (cause) {
    throw new CheckpointError(`checkpoint is not JSON: ${Buffer.from(value).subarray(0, 80).toString('utf8')}`, { cause });
  }
  if (!Number.isInteger(c.mc_seqno) || (c.mc_seqno as number) < 0 || typeof c.root_hash !== 'string' || typeof c.zero_state !== 'string') {
    throw new CheckpointError(`checkpoint lacks mc_seqno, root_hash or zero_state: ${JSON.stringify(c)}`);
  }
  return { mc_seqno: c.mc_seqno as number, root_hash: c.root_hash, zero_state: c.zero_state, written_at_ms: Number(c.written_at_ms ?? 0) };
}

/** The last checkpoint for `key` among messages in log order (compaction may not have run yet). */
export function latestCheckpoint(messages: Iterable<{ key: Uint8Array | string | null; value: Uint8Array | null }>, key: string): Checkpoint | undefined {
  let last: Checkpoint | undefined;
  for (const m of messages) {
    if (m.key === null || Buffer.from(m.key).toString('utf8') !== key) continue;
    last = decodeCheckpoint(m.value);
  }
  return last;
}

/** How the checkpoint compares with the chain: the chain's block at its seqno has its root hash or not. */
export type CheckpointCheck = 'none' | 'matches' | 'differs' | 'ahead_of_head';

export type StartPlan = {
  /** First masterchain seqno to publish. */
  from: number;
  /** Last one (backfill), or undefined: follow the head. */
  to: number | undefined;
  reason: 'checkpoint' | 'start_seqno' | 'head' | 'chain_changed' | 'backfill' | 'backfill_resumed' | 'backfill_done';
};

export type StartInput = {
  mode: RunMode;
  checkpoint: Checkpoint | undefined;
  check: CheckpointCheck;
  /** FETCHER_START_SEQNO: where a first live start begins. */
  startSeqno: number | 'head';
  headSeqno: number;
};

/** Where to start. Replays downstream are idempotent, so when in doubt this starts earlier, never later. */
export function planStart({ mode, checkpoint, check, startSeqno, headSeqno }: StartInput): StartPlan {
  if (mode.kind === 'backfill') {
    if (checkpoint && check === 'matches') {
      const from = Math.max(mode.from, checkpoint.mc_seqno + 1);
      return { from, to: mode.to, reason: from > mode.to ? 'backfill_done' : 'backfill_resumed' };
    }
    return { from: mode.from, to: mode.to, reason: 'backfill' };
  }
  if (checkpoint && check === 'matches') return { from: checkpoint.mc_seqno + 1, to: undefined, reason: 'checkpoint' };
  const fresh = startSeqno === 'head' ? { from: Math.max(1, headSeqno), reason: 'head' as const } : { from: Math.max(1, startSeqno), reason: 'start_seqno' as const };
  return { from: fresh.from, to: undefined, reason: checkpoint ? 'chain_changed' : fresh.reason };
}
