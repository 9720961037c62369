import { TonstreamError } from '@tonstream/errors';

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

export class CheckpointError extends TonstreamError {
  readonly code = 'CHECKPOINT_INVALID';
}

/** The checkpoint belongs to another chain than the liteservers serve: the fetcher stops (exit 1). */
export class CheckpointMismatchError extends TonstreamError {
  readonly code = 'CHECKPOINT_MISMATCH';
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

/** How the checkpoint compares with the chain at its seqno. */
export type CheckpointCheck =
  | { kind: 'none' }
  | { kind: 'matches' }
  /** The chain's block at the checkpoint's seqno has another root hash (or the chain another zero state). */
  | { kind: 'differs'; field: 'root_hash' | 'zero_state'; checkpoint: string; chain: string }
  /** The liteservers' head is below the checkpoint. */
  | { kind: 'ahead_of_head' };

export type StartPlan = {
  /** First masterchain seqno to publish. */
  from: number;
  /** Last one (backfill), or undefined: follow the head. */
  to: number | undefined;
  /**
   * `reset`: --reset ignored the checkpoint; `localnet_reset`: the local network was started afresh
   * (its global config says it is the localnet), so its checkpoint belongs to the old chain.
   */
  reason: 'checkpoint' | 'start_seqno' | 'head' | 'reset' | 'localnet_reset' | 'backfill' | 'backfill_resumed' | 'backfill_done';
};

/**
 * What to do on start. `wait_for_head`: the checkpoint is above the head of a real network's
 * liteservers; wait until the head reaches it, then decide again. `stop`: the checkpoint belongs to
 * another chain; continuing would skip or mix blocks, so the fetcher stops with `message`.
 */
export type StartDecision = { kind: 'start'; plan: StartPlan } | { kind: 'wait_for_head'; seqno: number; message: string } | { kind: 'stop'; message: string };

export type StartInput = {
  mode: RunMode;
  checkpoint: Checkpoint | undefined;
  check: CheckpointCheck;
  /** FETCHER_START_SEQNO: where a first live start begins. */
  startSeqno: number | 'head';
  headSeqno: number;
  /** --reset: ignore the checkpoint. */
  reset: boolean;
  /** The global config is the local network's (see @tonstream/liteserver-emulator LOCALNET_MARKER). */
  localnet: boolean;
  /** The checkpoint's key, for messages. */
  key: string;
};

/**
 * Where to start. Replays downstream are idempotent, so when in doubt this starts earlier, never
 * later; a live fetcher never jumps over blocks on its own: only --reset or a reset localnet move it.
 */
export function planStart(input: StartInput): StartDecision {
  const { mode, checkpoint, check, startSeqno, headSeqno } = input;
  const start = (from: number, to: number | undefined, reason: StartPlan['reason']): StartDecision => ({ kind: 'start', plan: { from, to, reason } });
  if (mode.kind === 'backfill') {
    // A backfill that cannot trust its checkpoint (or is told to --reset) redoes its whole range: nothing is skipped.
    if (checkpoint && check.kind === 'matches' && !input.reset) {
      const from = Math.max(mode.from, checkpoint.mc_seqno + 1);
      return start(from, mode.to, from > mode.to ? 'backfill_done' : 'backfill_resumed');
    }
    return start(mode.from, mode.to, 'backfill');
  }
  const fresh = startSeqno === 'head' ? Math.max(1, headSeqno) : Math.max(1, startSeqno);
  const freshReason = startSeqno === 'head' ? 'head' : 'start_seqno';
  if (input.reset) return start(fresh, undefined, 'reset');
  if (!checkpoint || check.kind === 'none') return start(fresh, undefined, freshReason);
  if (check.kind === 'matches') return start(checkpoint.mc_seqno + 1, undefined, 'checkpoint');
  if (input.localnet) return start(fresh, undefined, 'localnet_reset');
  if (check.kind === 'ahead_of_head') return { kind: 'wait_for_head', seqno: checkpoint.mc_seqno, message: aheadMessage(input.key, checkpoint, headSeqno) };
  return { kind: 'stop', message: mismatchMessage(input.key, checkpoint, check, startSeqno) };
}

const RESOLVE = 'point FETCHER_GLOBAL_CONFIG at the network the checkpoint belongs to, or restart the fetcher with --reset to ignore the checkpoint';

function mismatchMessage(key: string, cp: Checkpoint, d: Extract<CheckpointCheck, { kind: 'differs' }>, startSeqno: number | 'head'): string {
  const what = d.field === 'root_hash' ? 'root hash' : 'zero state';
  return (
    `checkpoint ${key} is at masterchain seqno ${cp.mc_seqno} with ${what} ${d.checkpoint}, but the liteservers' chain has ${what} ${d.chain} there: ` +
    `they serve another chain, and continuing would skip or mix blocks, so the fetcher stops. To resolve: ${RESOLVE} ` +
    `and start from ${startSeqno === 'head' ? 'the head (FETCHER_START_SEQNO=head)' : `FETCHER_START_SEQNO=${startSeqno}`}; the next checkpoint overwrites the old one.`
  );
}

function aheadMessage(key: string, cp: Checkpoint, headSeqno: number): string {
  return (
    `checkpoint ${key} is at masterchain seqno ${cp.mc_seqno}, above the liteservers' head ${headSeqno}: waiting for the head to reach it ` +
    `(lagging liteservers), then its root hash is compared. If they serve another chain: ${RESOLVE}.`
  );
}
