import { rethrowBugs } from '@tonstream/errors';
import type { HealthStatus, Logger } from '@tonstream/runtime';
import { addPendingUris, readHistoryFloor, readMetadataCursor, readTokenUris, readUnresolvedMetadata, readWatermark, saveMetadataCursor, writeMetadataEntries, type MetadataEntry, type Store } from '@tonstream/store';
import { retryDelayMs } from './backoff.js';
import type { MetadataConfig } from './config.js';
import { fetchJson, type FetchResult } from './fetch-json.js';
import { createHostRate } from './host-rate.js';
import type { MetadataMetrics } from './metrics.js';
import { fetchUrl } from './uri.js';

/** URIs held in memory; the rest stay `pending` in the store and are loaded as the queue drains. */
const QUEUE_MAX = 10_000;
/** How often queued work is handed out (a host's next slot, a retry coming due). */
const DISPATCH_INTERVAL_MS = 50;
/** Outcomes are written in batches: one small insert per fetch would make ClickHouse merge constantly. */
const FLUSH_INTERVAL_MS = 250;
const FLUSH_ROWS = 500;
/** Name of the discovery cursor in token_metadata_progress. */
export const CURSOR_NAME = 'discovery';
/**
 * Name of the history cursor: the history floor down to which token states have been scanned. A
 * backfill writes below the floor and lowers it when a range is complete (packages/store history.ts):
 * the seqnos it opens are scanned then.
 */
export const HISTORY_CURSOR_NAME = 'history';

export type WorkerConfig = Pick<MetadataConfig, 'ipfsGateway' | 'timeoutMs' | 'maxBytes' | 'maxRedirects' | 'maxAttempts' | 'retryBaseMs' | 'retryMaxMs' | 'hostRate' | 'concurrency' | 'pollIntervalMs' | 'scanSeqnos' | 'maxUnflushed' | 'dangerouslyAllowPrivateGateway'>;
export type MetadataWorkerDeps = { store: Store; config: WorkerConfig; metrics: MetadataMetrics; logger: Logger };
export type MetadataWorker = { start(): Promise<void>; stop(): Promise<void>; health(): HealthStatus };

type Queued = { attempts: number; dueAt: number };

/**
 * Finds the off-chain URIs of token states at or below the watermark (a cursor saved after their
 * `pending` entries are), fetches each (per-host rate, bounded concurrency), and stores the outcome:
 * ok with the JSON, retry after a backoff on a transient failure, failed with the reason otherwise.
 * Kill-safe: an entry stays `pending`/`retry` in the store until its outcome is written, and is
 * loaded again at start; a replayed scan adds nothing the cache knows. One worker per database.
 */
export function createMetadataWorker(deps: MetadataWorkerDeps): MetadataWorker {
  const { store, config, metrics, logger } = deps;
  const rate = createHostRate(config.hostRate);
  const queue = new Map<string, Queued>();
  const inFlight = new Set<string>();
  const settling = new Set<Promise<void>>();
  /** Outcomes not yet acknowledged by the store, oldest first (the insert under way included). */
  const unflushed: MetadataEntry[] = [];
  let flushing: Promise<void> | null = null;
  const privateOrigin = config.dangerouslyAllowPrivateGateway ? new URL(config.ipfsGateway).origin : undefined;
  let cursor: number | null = null;
  let historyCursor: number | null = null;
  let storeMayHaveMore = true;
  let storeError: string | null = null;
  let running = false;
  let polling = false;
  let stopping = new AbortController();
  const timers: NodeJS.Timeout[] = [];

  const gauges = () => {
    metrics.queue.set(queue.size);
    metrics.inFlight.set(inFlight.size);
    metrics.unflushed.set(unflushed.length);
  };

  function enqueue(uri: string, q: Queued): boolean {
    if (queue.has(uri) || inFlight.has(uri)) return true;
    if (queue.size >= QUEUE_MAX) return false;
    queue.set(uri, q);
    return true;
  }

  async function loadUnresolved(): Promise<void> {
    if (!storeMayHaveMore || queue.size > QUEUE_MAX / 2) return;
    const pendingWrites = new Set(unflushed.map((e) => e.uri));
    const rows = await readUnresolvedMetadata(store, QUEUE_MAX);
    for (const r of rows) if (!pendingWrites.has(r.uri)) enqueue(r.uri, { attempts: r.attempts, dueAt: r.next_attempt_at });
    storeMayHaveMore = rows.length >= QUEUE_MAX;
  }

  async function discover(): Promise<void> {
    const watermark = await readWatermark(store);
    if (!watermark) return;
    cursor ??= await readMetadataCursor(store, CURSOR_NAME);
    while (running && cursor < watermark.mc_seqno) {
      const upTo = Math.min(watermark.mc_seqno, cursor + config.scanSeqnos);
      const fresh = await addPendingUris(store, await readTokenUris(store, cursor, upTo));
      for (const uri of fresh) if (!enqueue(uri, { attempts: 0, dueAt: 0 })) storeMayHaveMore = true;
      metrics.discovered.inc(fresh.length);
      // Saved only after the pending entries are: a kill in between scans the range again, which adds nothing known.
      await saveMetadataCursor(store, CURSOR_NAME, upTo);
      cursor = upTo;
      metrics.cursor.set(cursor);
      dispatch();
    }
    await discoverHistory();
  }

  /** Scans down from the history cursor to the floor, a window at a time (the forward scan never looks below its cursor). */
  async function discoverHistory(): Promise<void> {
    const floor = await readHistoryFloor(store);
    if (floor === null) return;
    if (historyCursor === null) {
      // 0: never saved. The forward scan covered what was stored when it began; history begins at the floor then.
      historyCursor = (await readMetadataCursor(store, HISTORY_CURSOR_NAME)) || floor;
      await saveMetadataCursor(store, HISTORY_CURSOR_NAME, historyCursor);
    }
    while (running && floor < historyCursor) {
      const from = Math.max(floor, historyCursor - config.scanSeqnos);
      const fresh = await addPendingUris(store, await readTokenUris(store, from - 1, historyCursor - 1));
      for (const uri of fresh) if (!enqueue(uri, { attempts: 0, dueAt: 0 })) storeMayHaveMore = true;
      metrics.discovered.inc(fresh.length);
      await saveMetadataCursor(store, HISTORY_CURSOR_NAME, from);
      historyCursor = from;
      dispatch();
    }
  }

  async function poll(): Promise<void> {
    if (polling || !running) return;
    polling = true;
    try {
      await loadUnresolved();
      await discover();
      storeError = null;
    } catch (err) {
      storeError = (err as Error).message;
      metrics.storeErrors.inc();
      logger.warn('store unreachable; trying again on the next poll', { err });
    } finally {
      polling = false;
    }
    dispatch();
  }

  function dispatch(): void {
    if (!running) return;
    const now = Date.now();
    for (const [uri, q] of queue) {
      if (inFlight.size >= config.concurrency) break;
      // Backpressure while ClickHouse refuses writes: each fetch in flight has a place kept for its outcome.
      if (unflushed.length + inFlight.size >= config.maxUnflushed) break;
      if (q.dueAt > now) continue;
      const url = fetchUrl(uri, config.ipfsGateway);
      if (url && !rate.take(url.host, now)) continue;
      queue.delete(uri);
      inFlight.add(uri);
      const done = attempt(uri, url, q.attempts).finally(() => settling.delete(done));
      settling.add(done);
    }
    gauges();
  }

  async function attempt(uri: string, url: URL | null, attemptsBefore: number): Promise<void> {
    const started = Date.now();
    let result: FetchResult;
    try {
      result = url
        ? await fetchJson(url, { timeoutMs: config.timeoutMs, maxBytes: config.maxBytes, maxRedirects: config.maxRedirects, privateOrigin, signal: stopping.signal })
        : { ok: false, reason: 'bad_uri', retryable: false, detail: 'not an http(s) or ipfs URI' };
    } catch (err) {
      rethrowBugs(err);
      result = { ok: false, reason: 'network', retryable: true, detail: (err as Error).message };
    }
    inFlight.delete(uri);
    metrics.fetchSeconds.observe((Date.now() - started) / 1000);
    if (!result.ok && result.reason === 'aborted') return; // stopping: the entry stays as stored
    const now = Date.now();
    const attempts = attemptsBefore + 1;
    const base = { uri, attempts, updated_at: now, next_attempt_at: 0 };
    if (result.ok) {
      unflushed.push({ ...base, status: 'ok', reason: '', content: JSON.stringify(result.json) });
      metrics.fetched.inc();
    } else {
      metrics.attemptErrors.inc({ reason: result.reason });
      if (result.retryable && attempts < config.maxAttempts) {
        const dueAt = now + retryDelayMs(attempts, config.retryBaseMs, config.retryMaxMs);
        unflushed.push({ ...base, status: 'retry', reason: result.reason, content: '', next_attempt_at: dueAt });
        if (!enqueue(uri, { attempts, dueAt })) storeMayHaveMore = true;
      } else {
        unflushed.push({ ...base, status: 'failed', reason: result.reason, content: '' });
        metrics.failed.inc({ reason: result.reason });
      }
      logger.info('metadata fetch failed', { uri, reason: result.reason, detail: result.detail, attempts, final: !(result.retryable && attempts < config.maxAttempts) });
    }
    if (unflushed.length >= FLUSH_ROWS) void flush();
    dispatch();
  }

  /** One insert at a time; outcomes leave memory only once the store has them. */
  function flush(): Promise<void> {
    flushing ??= writeUnflushed().finally(() => (flushing = null));
    return flushing;
  }

  async function writeUnflushed(): Promise<void> {
    const rows = unflushed.length;
    if (rows === 0) return;
    try {
      await writeMetadataEntries(store, unflushed.slice(0, rows));
      unflushed.splice(0, rows);
    } catch (err) {
      storeError = (err as Error).message;
      metrics.storeErrors.inc();
      logger.warn('could not store metadata outcomes; kept for the next flush', { err, rows });
    }
  }

  return {
    async start() {
      running = true;
      stopping = new AbortController();
      await poll();
      timers.push(setInterval(() => void poll(), config.pollIntervalMs));
      timers.push(setInterval(dispatch, DISPATCH_INTERVAL_MS));
      timers.push(setInterval(() => void flush(), FLUSH_INTERVAL_MS));
    },
    async stop() {
      running = false;
      for (const t of timers.splice(0)) clearInterval(t);
      stopping.abort();
      await Promise.allSettled([...settling]);
      await flushing;
      await flush();
    },
    health() {
      const reasons: string[] = [];
      if (!running) reasons.push('not running');
      if (storeError) reasons.push(`ClickHouse: ${storeError}`);
      return { status: reasons.length === 0 ? 'ok' : 'degraded', reasons, details: { queue: queue.size, in_flight: inFlight.size, discovery_mc_seqno: cursor, unflushed: unflushed.length } };
    },
  };
}
