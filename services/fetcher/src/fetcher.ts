/**
 * The fetcher: follows the masterchain head, prepares masterchain blocks (with every shard block
 * they commit and the touched accounts' states) up to `concurrency` at a time, and publishes them
 * strictly in seqno order; after Kafka acknowledged a masterchain block and its shard blocks it
 * writes the checkpoint. Delivery is at least once: a restart repeats at most the blocks after the
 * last checkpoint, and downstream stores are idempotent by key.
 */
import type { HealthStatus, Logger } from '@tonstream/runtime';
import { type Checkpoint, type CheckpointCheck, checkpointKey, CheckpointMismatchError, planStart, type RunMode, type StartPlan } from './checkpoint.js';
import type { BlockBus } from './kafka-bus.js';
import type { ChainHead, LiteApi } from './lite-api.js';
import { createMcPreparer, type McBundle, type McPreparer } from './mc-bundle.js';
import type { FetcherMetrics } from './metrics.js';
import { createProgress } from './progress.js';
import { AbortedError, type BackoffOptions, retryForever, sleep } from '@tonstream/lite-client';

export type FetcherConfig = {
  /** Where a live fetcher without a checkpoint starts: a seqno or the head. @default 'head' */
  startSeqno: number | 'head';
  /** --reset: ignore the stored checkpoint and start from `startSeqno`. @default false */
  reset: boolean;
  /** The liteservers are the local network's: a checkpoint of another chain means it was reset. @default false */
  localnet: boolean;
  /** Backfill a range and stop; `to` undefined = the head at start. Keeps its own checkpoint. */
  backfill?: { from: number; to: number | undefined };
  /** Masterchain blocks prepared at once (published in order). @default 4 */
  concurrency: number;
  /** Shard blocks downloaded at once within one masterchain block. @default 8 */
  walkConcurrency: number;
  /** How often the head is polled. @default 250 */
  pollIntervalMs: number;
  /** How often the progress line is logged. @default 10_000 */
  progressIntervalMs: number;
  /** /healthcheck is degraded beyond this many masterchain blocks of lag (live mode). @default 30 */
  lagDegradedBlocks: number;
  /** ... or this many seconds of lag. @default 60 */
  lagDegradedSeconds: number;
  /** Backoff between retries of a failed masterchain block or Kafka send. */
  backoff: BackoffOptions;
};

export const DEFAULT_FETCHER_CONFIG: FetcherConfig = {
  startSeqno: 'head',
  reset: false,
  localnet: false,
  concurrency: 4,
  walkConcurrency: 8,
  pollIntervalMs: 250,
  progressIntervalMs: 10_000,
  lagDegradedBlocks: 30,
  lagDegradedSeconds: 60,
  backoff: { baseMs: 250, maxMs: 10_000 },
};

export type FetcherDeps = {
  lite: LiteApi;
  bus: BlockBus;
  logger: Logger;
  metrics?: FetcherMetrics;
  config?: Partial<FetcherConfig>;
  now?: () => number;
  /** Test seam: prepares masterchain bundles. @default createMcPreparer over `lite` */
  preparer?: McPreparer;
};

export type FetcherStatus = {
  phase: 'starting' | 'running' | 'done' | 'stopped';
  mode: RunMode['kind'];
  checkpointKey?: string;
  plan?: StartPlan;
  headSeqno?: number;
  publishedSeqno?: number;
  checkpointSeqno?: number;
};

export type Fetcher = {
  /** Runs until stop(), or in backfill mode until the last block is published. */
  run(): Promise<void>;
  /** Stops at once: work in flight is abandoned (the checkpoint makes that safe). */
  stop(): Promise<void>;
  health(): HealthStatus;
  status(): FetcherStatus;
};

export function createFetcher(deps: FetcherDeps): Fetcher {
  const { lite, bus, logger, metrics } = deps;
  const cfg: FetcherConfig = { ...DEFAULT_FETCHER_CONFIG, ...deps.config };
  const now = deps.now ?? Date.now;
  const controller = new AbortController();
  const signal = controller.signal;
  const preparer = deps.preparer ?? createMcPreparer({ lite, walkConcurrency: cfg.walkConcurrency });
  const progress = createProgress(now);
  const mode: RunMode['kind'] = cfg.backfill ? 'backfill' : 'live';

  const st: FetcherStatus = { phase: 'starting', mode };
  let head: ChainHead | undefined;
  let headError: string | undefined;
  let publishError: string | undefined;
  /** Why the start waits (a checkpoint above the head), for /healthcheck. */
  let startWait: string | undefined;
  let publishedGenUtime: number | undefined;
  let missingWarned = false;
  /** (seqno, time) each time the head moved: block s was first seen at the first entry with seqno >= s. */
  const sightings: { seqno: number; atMs: number }[] = [];
  let headWaiters: { seqno: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  let running: Promise<void> | undefined;

  const observeHead = (h: ChainHead) => {
    if (head && h.last.seqno <= head.last.seqno) return;
    head = h;
    st.headSeqno = h.last.seqno;
    sightings.push({ seqno: h.last.seqno, atMs: now() });
    preparer.knowId(h.last);
    metrics?.headSeqno.set(h.last.seqno);
    updateLag();
    headWaiters = headWaiters.filter((w) => {
      if (w.seqno > h.last.seqno) return true;
      w.resolve();
      return false;
    });
  };

  const seenAt = (seqno: number): number => sightings.find((s) => s.seqno >= seqno)?.atMs ?? now();

  const waitHead = (seqno: number): Promise<void> => {
    if (head && head.last.seqno >= seqno) return Promise.resolve();
    if (signal.aborted) return Promise.reject(new AbortedError('aborted'));
    return new Promise((resolve, reject) => headWaiters.push({ seqno, resolve, reject }));
  };

  signal.addEventListener('abort', () => {
    for (const w of headWaiters) w.reject(new AbortedError('aborted'));
    headWaiters = [];
  });

  /** `p`, or AbortedError as soon as the fetcher stops (the work itself is abandoned). */
  const abortable = <T>(p: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (signal.aborted) return reject(new AbortedError('aborted'));
      const onAbort = () => reject(new AbortedError('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });

  const updateLag = () => {
    if (!head || st.publishedSeqno === undefined) return;
    metrics?.lagBlocks.set(Math.max(0, head.last.seqno - st.publishedSeqno));
    metrics?.lagSeconds.set(Math.max(0, head.lastUtime - (publishedGenUtime ?? head.lastUtime)));
  };

  const pollHead = async () => {
    let failures = 0;
    while (!signal.aborted) {
      try {
        observeHead(await lite.head());
        if (failures > 0) logger.info('masterchain head reachable again', { head_seqno: head?.last.seqno, failures });
        failures = 0;
        headError = undefined;
      } catch (err) {
        if (signal.aborted) break;
        headError = (err as Error).message;
        // Log the first failure and then every 20th, not every poll.
        if (failures++ % 20 === 0) logger.warn('cannot get the masterchain head', { err, failures });
      }
      await sleep(cfg.pollIntervalMs, signal).catch(() => {});
    }
  };

  const retrying = <T>(what: string, fields: Record<string, unknown>, fn: () => Promise<T>, onError?: (err: unknown) => void) =>
    retryForever(fn, {
      backoff: cfg.backoff,
      signal,
      onError: (err, attempt, delayMs) => {
        onError?.(err);
        logger[attempt < 3 ? 'warn' : 'error'](`${what} failed, retrying`, { ...fields, attempt, delay_ms: delayMs, err });
      },
    });

  const prepare = (seqno: number): Promise<McBundle> =>
    retrying('preparing masterchain block', { mc_seqno: seqno }, () => preparer.prepare(seqno, seenAt(seqno)), () => metrics?.jobRetries.inc());

  /**
   * `indexFrom`: set when this run starts the index (no checkpoint to resume from); masterchain blocks
   * carry it so the writer's watermark begins there, not at whichever block happens to be stored first.
   */
  const publish = async (bundle: McBundle, key: string, indexFrom: number | undefined) => {
    const started = now();
    const blocks = indexFrom === undefined ? bundle.blocks : bundle.blocks.map((b) => (b.workchain === -1 ? { ...b, index_from: indexFrom } : b));
    await retrying(
      'publishing to Kafka',
      { mc_seqno: bundle.seqno },
      async () => {
        await bus.publish(blocks);
        publishError = undefined;
      },
      (err) => {
        publishError = (err as Error).message;
        metrics?.publishErrors.inc();
      },
    );
    metrics?.publishDuration.observe((now() - started) / 1000);
    st.publishedSeqno = bundle.seqno;
    publishedGenUtime = bundle.genUtime;
    const checkpoint: Checkpoint = { mc_seqno: bundle.seqno, root_hash: bundle.id.root_hash, zero_state: head?.zeroState ?? '', written_at_ms: now() };
    await retrying('writing the checkpoint', { mc_seqno: bundle.seqno }, () => bus.writeCheckpoint(key, checkpoint));
    st.checkpointSeqno = bundle.seqno;

    const shardBlocks = bundle.blocks.length - 1;
    let bytes = bundle.accountStateBytes;
    for (const [wc, n] of bundle.blockBytes) {
      metrics?.blockBytes.inc({ workchain: String(wc) }, n);
      bytes += n;
    }
    const byWc = new Map<number, number>();
    for (const b of bundle.blocks) byWc.set(b.workchain, (byWc.get(b.workchain) ?? 0) + 1);
    for (const [wc, n] of byWc) metrics?.blocks.inc({ workchain: String(wc) }, n);
    metrics?.accountStates.inc(bundle.accountStates);
    const missing = bundle.missingStates.reduce((sum, m) => sum + m.accounts.length, 0);
    if (missing > 0) {
      metrics?.missingStates.inc(missing);
      // Warn once; afterwards the count rides on the progress line.
      const level = missingWarned ? 'debug' : 'warn';
      missingWarned = true;
      logger[level]('published without some account states: the liteservers no longer keep them (counted in progress as account_states_missing)', {
        mc_seqno: bundle.seqno,
        missing,
        blocks: bundle.missingStates.map((m) => m.block),
      });
    }
    metrics?.accountStateBytes.inc(bundle.accountStateBytes);
    metrics?.publishedSeqno.set(bundle.seqno);
    metrics?.checkpointSeqno.set(bundle.seqno);
    updateLag();
    progress.add(bundle.seqno, bundle.blocks.length, bundle.accountStates, bytes, missing);
    if (logger.isEnabled('debug')) {
      logger.debug('published', { mc_seqno: bundle.seqno, shard_blocks: shardBlocks, account_states: bundle.accountStates, bytes, duration_ms: now() - started, wait_ms: now() - bundle.seenAtMs });
    }
  };

  /** Compares the checkpoint with the chain: same root hash at its seqno, or not. */
  const checkCheckpoint = async (cp: Checkpoint | undefined, h: ChainHead): Promise<CheckpointCheck> => {
    if (!cp) return { kind: 'none' };
    if (cp.zero_state !== h.zeroState) return { kind: 'differs', field: 'zero_state', checkpoint: cp.zero_state, chain: h.zeroState };
    if (cp.mc_seqno > h.last.seqno) return { kind: 'ahead_of_head' };
    try {
      const id = await lite.masterchainBlockId(cp.mc_seqno);
      return id.root_hash === cp.root_hash ? { kind: 'matches' } : { kind: 'differs', field: 'root_hash', checkpoint: cp.root_hash, chain: id.root_hash };
    } catch (err) {
      // An old block the liteservers no longer look up: trust the checkpoint rather than restart elsewhere.
      logger.warn('cannot verify the checkpoint against the chain; resuming from it', { mc_seqno: cp.mc_seqno, err });
      return { kind: 'matches' };
    }
  };

  /** Plans the start; waits while the checkpoint is above a real network's head; throws when it belongs to another chain. */
  const decideStart = async (runMode: RunMode, key: string, cp: Checkpoint | undefined): Promise<StartPlan> => {
    for (;;) {
      const check = await checkCheckpoint(cp, head!);
      const decision = planStart({ mode: runMode, checkpoint: cp, check, startSeqno: cfg.startSeqno, headSeqno: head!.last.seqno, reset: cfg.reset, localnet: cfg.localnet, key });
      if (decision.kind === 'stop') throw new CheckpointMismatchError(decision.message);
      if (decision.kind === 'start') {
        logPlan(decision.plan, cp, check, key);
        return decision.plan;
      }
      startWait = decision.message;
      logger.warn(decision.message, { checkpoint: cp?.mc_seqno, head_seqno: head!.last.seqno, key });
      await waitHead(decision.seqno);
      startWait = undefined;
    }
  };

  const logPlan = (plan: StartPlan, cp: Checkpoint | undefined, check: CheckpointCheck, key: string) => {
    const fields = { from: plan.from, to: plan.to ?? null, reason: plan.reason, head_seqno: head!.last.seqno, checkpoint: cp?.mc_seqno ?? null, checkpoint_check: check.kind, key, concurrency: cfg.concurrency };
    if (plan.reason === 'reset' && cp) {
      logger.warn('--reset: ignoring the stored checkpoint and starting from FETCHER_START_SEQNO or the head; the next checkpoint overwrites it', { ...fields, ignored_checkpoint: cp });
    } else if (plan.reason === 'localnet_reset') {
      const why = check.kind === 'differs' ? `its ${check.field === 'root_hash' ? 'root hash' : 'zero state'} at masterchain seqno ${cp?.mc_seqno} is ${check.chain}, the checkpoint's ${check.checkpoint}` : `its head ${head!.last.seqno} is below the checkpoint's seqno ${cp?.mc_seqno}`;
      logger.warn(`local network was reset: ${why}; starting from its new genesis (FETCHER_START_SEQNO or the head)`, { ...fields, ignored_checkpoint: cp });
    }
    const log = check.kind === 'differs' || check.kind === 'ahead_of_head' ? logger.warn : logger.info;
    log('starting', fields);
  };

  const main = async () => {
    const h = await retrying('getting the masterchain head', {}, () => lite.head());
    observeHead(h);
    void pollHead();
    const runMode: RunMode = cfg.backfill ? { kind: 'backfill', from: cfg.backfill.from, to: cfg.backfill.to ?? h.last.seqno } : { kind: 'live' };
    const key = checkpointKey(h.zeroState, runMode);
    st.checkpointKey = key;
    const cp = await retrying('reading the checkpoint', { key }, () => bus.readCheckpoint(key));
    const plan = await decideStart(runMode, key, cp);
    st.plan = plan;
    st.phase = 'running';
    const indexFrom = runMode.kind === 'live' && plan.reason !== 'checkpoint' ? plan.from : undefined;

    const progressTimer = setInterval(() => {
      const target = plan.to ?? head?.last.seqno ?? 0;
      logger.info('progress', { mode, ...progress.report(target) });
    }, cfg.progressIntervalMs);
    progressTimer.unref();

    const window = new Map<number, Promise<McBundle>>();
    let next = plan.from;
    let launched = plan.from;
    try {
      while (plan.to === undefined || next <= plan.to) {
        await waitHead(next);
        const upper = Math.min(head!.last.seqno, plan.to ?? Infinity);
        while (launched <= upper && launched < next + cfg.concurrency) {
          const p = prepare(launched);
          p.catch(() => {}); // awaited in order below; this only silences aborts of later ones
          window.set(launched++, p);
        }
        const bundle = await abortable(window.get(next)!);
        window.delete(next);
        await abortable(publish(bundle, key, indexFrom));
        preparer.forget(next);
        while (sightings.length > 1 && sightings[0].seqno <= next) sightings.shift();
        next++;
      }
      st.phase = 'done';
      logger.info('backfill done', { from: plan.from, to: plan.to ?? null, ...progress.total(plan.to ?? next - 1) });
    } finally {
      clearInterval(progressTimer);
    }
  };

  return {
    run() {
      running ??= main().catch((err) => {
        if (err instanceof AbortedError || signal.aborted) {
          st.phase = 'stopped';
          return;
        }
        // A fatal error (a checkpoint of another chain): stop the head poller too.
        controller.abort();
        st.phase = 'stopped';
        throw err;
      });
      return running;
    },
    async stop() {
      controller.abort();
      await running?.catch(() => {});
      if (st.phase !== 'done') st.phase = 'stopped';
      controller.abort();
    },
    health() {
      const reasons: string[] = [];
      if (!head) reasons.push(`no masterchain head yet${headError ? `: ${headError}` : ''}`);
      if (startWait) reasons.push(startWait);
      const pool = lite.pool.health();
      if (pool.allFailing) reasons.push(`all ${pool.servers.length} liteservers failing: ${pool.servers.map((s) => `${s.name}: ${s.lastError}`).join('; ')}`);
      if (publishError) reasons.push(`Kafka publish failing: ${publishError}`);
      if (mode === 'live' && st.phase === 'running' && head && st.publishedSeqno !== undefined) {
        const lagBlocks = head.last.seqno - st.publishedSeqno;
        const lagSeconds = head.lastUtime - (publishedGenUtime ?? head.lastUtime);
        if (lagBlocks > cfg.lagDegradedBlocks) reasons.push(`lagging ${lagBlocks} masterchain blocks behind the head (limit ${cfg.lagDegradedBlocks})`);
        else if (lagSeconds > cfg.lagDegradedSeconds) reasons.push(`lagging ${lagSeconds} s behind the head (limit ${cfg.lagDegradedSeconds})`);
      }
      return { status: reasons.length > 0 ? 'degraded' : 'ok', reasons };
    },
    status: () => ({ ...st }),
  };
}
