/**
 * A backfill: [from .. to] cut into lanes (plan.ts), each run as its own pipeline (lane-processes.ts)
 * over the index's database. A lane is done when its fetcher and tracer finished and its consumers
 * read everything; then its range is checked for gaps (the receipts of every seqno, as the watermark
 * counts them), holes are fetched again, the range's completeness record is saved, and the history
 * floor moves down over the complete ranges that reach it.
 */
import { type HistoryRange, lowerFloor, readHistoryFloor, readHistoryRanges, rangeComplete, readRangeCheck, saveHistoryFloor, saveRangeCheck, type Store } from '@tonstream/store';
import type { Logger } from '@tonstream/runtime';
import type { Admin } from 'kafkajs';
import { laneBacklog } from './drained.js';
import { startLane } from './lane-processes.js';
import { type Lane, splitRange } from './plan.js';

export type BackfillOptions = {
  from: number;
  to: number;
  lanes: number;
  /** Seqnos each lane fetches and traces past its range (TRACER_LANE_OVERLAP). */
  overlap: number;
  /** KAFKA_TOPIC_PREFIX of the index: lanes' prefixes extend it. */
  basePrefix: string;
  store: Store;
  admin: Admin;
  root: string;
  logDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Gap checks and refetches of one lane before its holes are reported and left. @default 3 */
  refetchRounds?: number;
  /** Progress line interval (ms). @default 10000 */
  progressMs?: number;
  /** Aborted: every lane's processes are stopped and the backfill rejects (a later run resumes). */
  signal?: AbortSignal;
};

export type LaneResult = HistoryRange & { seconds: number; restarts: Record<string, number>; skipped: boolean };
export type BackfillResult = { lanes: LaneResult[]; floor: number | null; seconds: number };

const POLL_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Masterchain seqnos of [from .. to] whose masterchain block meta is stored (progress, not completeness). */
async function storedMcBlocks(store: Store, from: number, to: number): Promise<number> {
  const rows = await store.query<{ n: string }>(
    `SELECT uniqExact(mc_seqno) AS n FROM ${store.database}.index_receipts WHERE kind = 'block' AND mc_blocks > 0 AND mc_seqno >= ${from} AND mc_seqno <= ${to}`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Contiguous runs of seqnos: [3, 4, 5, 9] -> [[3, 5], [9, 9]]. */
export function runsOf(seqnos: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const n of [...seqnos].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  return runs;
}

export async function runBackfill(o: BackfillOptions): Promise<BackfillResult> {
  const started = Date.now();
  const lanes = splitRange(o.from, o.to, o.lanes, o.basePrefix);
  const checked = await readHistoryRanges(o.store);
  const isDone = (l: Lane) => checked.some((r) => r.from_seqno === l.from && r.to_seqno === l.to && rangeComplete(r));
  o.logger.info('backfill starting', { from: o.from, to: o.to, lanes: lanes.map((l) => `${l.from}..${l.to}${isDone(l) ? ' (complete)' : ''}`), overlap: o.overlap });

  let floorLock: Promise<unknown> = Promise.resolve();
  /** Lowers the floor over every complete range (one at a time: lanes finish concurrently). */
  const moveFloor = () => {
    const next = floorLock.then(async () => {
      const floor = await readHistoryFloor(o.store);
      if (floor === null) {
        o.logger.warn('the index has no history floor yet (its live writer has not stored its first watermark): the floor moves once it has');
        return;
      }
      const lowered = lowerFloor(floor, await readHistoryRanges(o.store));
      if (lowered < floor) {
        await saveHistoryFloor(o.store, lowered);
        o.logger.info('history floor lowered', { from: floor, to: lowered });
      }
    });
    floorLock = next.catch(() => {});
    return next;
  };

  const progress = setInterval(() => {
    void Promise.all(lanes.map(async (l) => `${l.from}..${l.to}: ${await storedMcBlocks(o.store, l.from, l.to)}/${l.to - l.from + 1}`)).then(
      (lines) => o.logger.info('backfill progress (masterchain blocks stored per lane)', { lanes: lines, seconds: Math.round((Date.now() - started) / 1000) }),
      () => {},
    );
  }, o.progressMs ?? 10_000);

  const runLane = async (lane: Lane): Promise<LaneResult> => {
    const laneStarted = Date.now();
    const label = `${lane.from}..${lane.to}`;
    if (isDone(lane)) {
      const record = checked.find((r) => r.from_seqno === lane.from && r.to_seqno === lane.to)!;
      return { ...record, seconds: 0, restarts: {}, skipped: true };
    }
    const procs = startLane({ lane, overlap: o.overlap, root: o.root, logDir: o.logDir, env: o.env, logger: o.logger });
    const aborted = new Promise<never>((_, reject) => {
      if (o.signal?.aborted) reject(new Error('backfill stopped'));
      o.signal?.addEventListener('abort', () => reject(new Error('backfill stopped')), { once: true });
    });
    aborted.catch(() => {});
    try {
      await Promise.race([procs.finished, aborted]);
      const drained = async () => {
        while ((await laneBacklog(o.admin, lane.prefix)) > 0) await Promise.race([sleep(POLL_MS), aborted]);
      };
      await drained();
      let check = await readRangeCheck(o.store, lane.from, lane.to);
      for (let round = 0; check.holes.length > 0 && round < (o.refetchRounds ?? 3); round++) {
        o.logger.warn('gap check found holes: fetching them again', { lane: label, holes: check.holes, round: round + 1 });
        for (const [a, b] of runsOf(check.holes)) await procs.refetch(a, b);
        await drained();
        check = await readRangeCheck(o.store, lane.from, lane.to);
      }
      const record: HistoryRange = { ...check, traced: true, checked_ms: Date.now() };
      await saveRangeCheck(o.store, record);
      if (check.holes.length > 0) o.logger.error('range left with holes: the history floor stays above it', { lane: label, holes: check.holes });
      else o.logger.info('lane complete', { lane: label, mc_blocks: check.mc_blocks, blocks: check.blocks, transactions: check.transactions, seconds: (Date.now() - laneStarted) / 1000 });
      await moveFloor();
      return { ...record, seconds: (Date.now() - laneStarted) / 1000, restarts: procs.restarts(), skipped: false };
    } finally {
      await procs.stop();
    }
  };

  try {
    // Settled, not all: a lane that fails (or a stop) rejects only after every lane has stopped its processes.
    const settled = await Promise.allSettled(lanes.map(runLane));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const results = settled.map((r) => (r as PromiseFulfilledResult<LaneResult>).value);
    await moveFloor();
    return { lanes: results, floor: await readHistoryFloor(o.store), seconds: (Date.now() - started) / 1000 };
  } finally {
    clearInterval(progress);
  }
}
