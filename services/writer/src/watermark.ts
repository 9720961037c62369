import type { Logger } from '@tonstream/runtime';
import {
  advanceTracesWatermark,
  advanceWatermark,
  type BlockProgress,
  dropOldReceipts,
  indexStart,
  readProgress,
  readTraceProgress,
  readTracesWatermark,
  readHistoryFloor,
  readWatermark,
  RECEIPT_PARTITION_SEQNOS,
  saveHistoryFloor,
  saveTracesWatermark,
  saveWatermark,
  type Store,
  type TraceBatchProgress,
  tracesStart,
  type TracesWatermark,
  type Watermark,
} from '@tonstream/store';

/** Masterchain seqnos read per step: a few hundred receipts each on mainnet, a quick query. */
const WINDOW = 512;
/** Tracer batches read per step: a receipt per trace, so up to a few hundred per batch on mainnet. */
const TRACE_BATCHES = 64;
/**
 * Steps are at least this far apart while batches keep arriving: a catching-up writer stores many
 * batches a second, and each step costs ClickHouse two or three queries.
 */
const MIN_GAP_MS = 100;
/** A watermark that has not moved for this long while blocks above it were seen makes the writer degraded. */
const STALL_DEGRADED_MS = 60_000;

/**
 * What a keeper moves (the stored-up-to watermark, or the traces watermark): where it stands, where
 * it begins, the receipts above it, how far they let it move, and how it is saved.
 */
export type WatermarkTrack<W extends { mc_seqno: number }, P> = {
  /** In log lines: `watermark`, `traces watermark`. */
  name: string;
  read(store: Store): Promise<W | null>;
  start(store: Store): Promise<number | null>;
  /** The receipts of what follows `after`; `full` when there may be more beyond them. */
  progress(store: Store, after: number): Promise<{ items: P[]; full: (moved: W) => boolean }>;
  advance(current: W | null, start: number, progress: P[]): { watermark: W | null; waiting: string | null; stuck: boolean };
  save(store: Store, w: W): Promise<void>;
  dropBelow(store: Store, watermark: number): Promise<number>;
  /** Looks at the receipts read (the index warns of a fetcher run started below the watermark). */
  inspect?(progress: P[], current: W | null): void;
};

/** The stored-up-to watermark over the decoder's block receipts (packages/store index-progress.ts). */
export function indexTrack(logger: Logger): WatermarkTrack<Watermark, BlockProgress> {
  let warnedRestart: number | undefined;
  let floorSaved = false;
  return {
    name: 'watermark',
    read: readWatermark,
    start: indexStart,
    async progress(store, after) {
      const items = await readProgress(store, after, WINDOW);
      return { items, full: (moved) => moved.mc_seqno - after >= WINDOW };
    },
    advance: advanceWatermark,
    /**
     * With the index's first watermark, its history floor (packages/store history.ts): where the index
     * began (`indexStart`, as the watermark counts from). An index made before the floor existed gets it
     * at its next move.
     */
    async save(store, w) {
      await saveWatermark(store, w);
      if (floorSaved) return;
      if ((await readHistoryFloor(store)) === null) {
        const start = await indexStart(store);
        if (start !== null && start <= w.mc_seqno) await saveHistoryFloor(store, start);
      }
      floorSaved = true;
    },
    dropBelow: async (store, w) => dropOldReceipts(store, w, 'index_receipts', await readHistoryFloor(store)),
    /**
     * A fetcher run that starts the index below the watermark: the index was started again over what
     * is stored (its checkpoint lost, or a local network reset, which makes the stored blocks another
     * chain's). The watermark cannot tell the chains apart; say so once.
     */
    inspect(progress, current) {
      const from = progress.find((b) => b.manifest && b.manifest.index_from > 0 && current && b.manifest.index_from <= current.mc_seqno)?.manifest?.index_from;
      if (from === undefined || from === warnedRestart) return;
      warnedRestart = from;
      logger.warn('the fetcher started the index again at a seqno below the watermark: if the chain was reset (a local network started with --reset), reset the database too', { index_from: from, watermark: current?.mc_seqno });
    },
  };
}

/** The traces watermark over the tracer's batch receipts (packages/store trace-progress.ts). */
export const tracesTrack: WatermarkTrack<TracesWatermark, TraceBatchProgress> = {
  name: 'traces watermark',
  read: readTracesWatermark,
  start: tracesStart,
  async progress(store, after) {
    const items = await readTraceProgress(store, after, TRACE_BATCHES);
    return { items, full: () => items.length >= TRACE_BATCHES };
  },
  advance: advanceTracesWatermark,
  save: saveTracesWatermark,
  dropBelow: async (store, w) => dropOldReceipts(store, w, 'trace_receipts', await readHistoryFloor(store)),
};

export type WatermarkStatus<W = Watermark> = {
  watermark: W | null;
  /** Why the next seqno is not complete; null when nothing above the watermark was seen. */
  waiting: string | null;
  /** The next seqno has dead-lettered records: it will not complete by itself. */
  stuck: boolean;
  /** How long the watermark has been waiting (ms); 0 when it is not. */
  waitingMs: number;
};

export type WatermarkKeeper<W = Watermark> = {
  /** Rows were stored: see whether the watermark can move (coalesced, one run at a time). */
  poke(): void;
  /** Checks now and then even without pokes: another writer instance may have stored the rest. */
  start(): void;
  stop(): Promise<void>;
  /** The masterchain block `mcSeqno` was first seen by the fetcher at `seenAtMs` (for freshness). */
  seen(mcSeqno: number, seenAtMs: number): void;
  status(): WatermarkStatus<W>;
  /** Reasons for /healthcheck: a watermark stuck on dead letters or stalled. */
  problems(): string[];
};

export type WatermarkKeeperOptions<W extends { mc_seqno: number }, P> = {
  store: Store;
  logger: Logger;
  track: WatermarkTrack<W, P>;
  /** Called after the watermark moved and was saved; `freshness` has (seconds) for seqnos whose seen time is known. */
  onAdvance?: (watermark: W, freshness: number[]) => void;
  intervalMs?: number;
  now?: () => number;
};

/**
 * Keeps a watermark (`track`): after rows are stored, reads the receipts above the watermark, moves
 * it over everything complete and saves it. Several writer instances may run this at once; they
 * compute the same value from the same receipts.
 */
export function createWatermarkKeeper<W extends { mc_seqno: number }, P>({ store, logger, track, onAdvance, intervalMs = 1_000, now = Date.now }: WatermarkKeeperOptions<W, P>): WatermarkKeeper<W> {
  let current: W | null = null;
  let waiting: string | null = null;
  let stuck = false;
  let waitingSince = 0;
  let running: Promise<void> | undefined;
  let pending: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastStuck = '';
  let droppedBelow = -1;
  const seenAt = new Map<number, number>();

  async function step(): Promise<void> {
    const persisted = await track.read(store);
    if (persisted && (!current || persisted.mc_seqno > current.mc_seqno)) current = persisted;
    const start = current ? current.mc_seqno + 1 : await track.start(store);
    if (start === null) return;
    for (;;) {
      const after = current ? current.mc_seqno : start - 1;
      const progress = await track.progress(store, after);
      track.inspect?.(progress.items, current);
      const result = track.advance(current, start, progress.items);
      note(result.waiting, result.stuck);
      const moved = result.watermark && (!current || result.watermark.mc_seqno > current.mc_seqno) ? result.watermark : undefined;
      if (!moved) return;
      await track.save(store, moved);
      const freshness: number[] = [];
      for (let n = after + 1; n <= moved.mc_seqno; n++) {
        const seen = seenAt.get(n);
        if (seen !== undefined) freshness.push(Math.max(0, now() - seen) / 1000);
        seenAt.delete(n);
      }
      current = moved;
      waitingSince = 0;
      onAdvance?.(moved, freshness);
      await dropReceiptsBelow(moved.mc_seqno);
      if (!progress.full(moved)) return;
    }
  }

  /** Records why the seqno after the watermark is incomplete (null: nothing above it seen yet). */
  function note(reason: string | null, isStuck: boolean) {
    if (reason === null) waitingSince = 0;
    else if (waitingSince === 0) waitingSince = now();
    // Said once per reason when it will not resolve by itself; the rest is in /healthcheck.
    if (isStuck && reason !== null && reason !== lastStuck) {
      lastStuck = reason;
      logger.error(`the ${track.name} cannot move: records of the next masterchain block were dead-lettered`, { watermark: current?.mc_seqno ?? null, reason });
    }
    waiting = reason;
    stuck = isStuck;
  }

  async function dropReceiptsBelow(watermark: number) {
    const partition = Math.floor(watermark / RECEIPT_PARTITION_SEQNOS);
    if (partition <= droppedBelow) return;
    droppedBelow = partition;
    const dropped = await track.dropBelow(store, watermark);
    if (dropped > 0) logger.info(`dropped receipt partitions below the ${track.name}`, { partitions: dropped, watermark });
  }

  /** Runs a step; pokes meanwhile coalesce into one more step, at least MIN_GAP_MS after the last began. */
  function poke() {
    if (running || pending) {
      again = true;
      return;
    }
    const began = now();
    running = step()
      .catch((err: unknown) => logger.warn(`${track.name} check failed; trying again later`, { err }))
      .finally(() => {
        running = undefined;
        if (!again || stopped) return;
        again = false;
        pending = setTimeout(() => {
          pending = undefined;
          poke();
        }, Math.max(0, MIN_GAP_MS - (now() - began)));
        pending.unref();
      });
  }

  return {
    poke,
    start() {
      timer ??= setInterval(poke, intervalMs);
      timer.unref();
      poke();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(pending);
      timer = undefined;
      await running;
    },
    seen(mcSeqno, seenAtMs) {
      if (!current || mcSeqno > current.mc_seqno) seenAt.set(mcSeqno, seenAtMs);
    },
    status: () => ({ watermark: current, waiting, stuck, waitingMs: waitingSince === 0 ? 0 : now() - waitingSince }),
    problems() {
      const at = current?.mc_seqno ?? 'none';
      if (stuck) return [`${track.name} held at ${at}: ${waiting}`];
      if (waiting !== null && waitingSince !== 0 && now() - waitingSince > STALL_DEGRADED_MS) return [`${track.name} at ${at} has not moved for ${Math.round((now() - waitingSince) / 1000)} s: ${waiting}`];
      return [];
    },
  };
}
