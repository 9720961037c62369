/**
 * Liteserver queries over several servers: round robin, skipping servers that failed recently
 * (cooldown growing with consecutive failures), a per-query timeout, and bounded retries with
 * backoff, each retry on the next server. An answer meaning "this server does not have it" is
 * final only when every configured server gave it. Every attempt is reported to an observer
 * (tongo's `RequestObserver` is the model): the services turn the events into their metrics.
 */
import type { LiteEngine } from 'ton-lite-client';
import { createLimiter, type Limiter } from './limit.js';
import { AbortedError, backoffDelay, type BackoffOptions, DEFAULT_BACKOFF, sleep as defaultSleep } from './retry.js';
import { TonstreamError } from '@tonstream/errors';

/** What the pool needs of a ton-lite-client engine (`LiteSingleEngine` fits; tests pass fakes). */
export type QueryEngine = Pick<LiteEngine, 'query' | 'isReady' | 'close'>;

/** A ton-lite-client TL function (`Functions.liteServer_getBlock`…), typed by request and result. */
export type LiteFunction<REQ, RES> = { encodeRequest(src: REQ, encoder: unknown): void; decodeResponse(decoder: unknown): RES };

export type PoolServer = { /** `host:port`, for logs and metric labels. */ name: string; engine: QueryEngine };

/** `gone`: the server answered that it does not have what was asked (see `isGone`). */
export type QueryResult = 'ok' | 'error' | 'timeout' | 'gone';

/** One attempt of a query: `attempt` 0 is the first, a higher one a retry. */
export type QueryEvent = { server: string; method: string; durationMs: number; result: QueryResult; attempt: number; error?: Error };

/** Told of every attempt, after it ended. Must not throw. */
export type QueryObserver = { observeQuery(event: QueryEvent): void };

export type LitePoolOptions = {
  servers: readonly PoolServer[];
  /** Per-attempt timeout. @default 10_000 */
  timeoutMs?: number;
  /** Attempts per query (the first included), each on the next usable server. @default 5 */
  attempts?: number;
  backoff?: BackoffOptions;
  /** A failing server is skipped for cooldownMs·2^(failures-1), at most maxCooldownMs. @default 1_000 */
  cooldownMs?: number;
  /** @default 30_000 */
  maxCooldownMs?: number;
  /** Queries in flight over all servers (`Infinity`: no bound). @default 32 */
  concurrency?: number;
  observer?: QueryObserver;
  /**
   * Answers meaning "this server does not have it" (e.g. a state it garbage-collected). Another
   * server may still have it, so the query goes on to the servers not asked yet; only when every
   * configured server answered so does it fail with GoneEverywhereError. Such an answer is not a
   * failure: it uses none of the `attempts` and does not cool the server down. Timeouts never
   * count. @default none
   */
  isGone?: (error: Error, method: string) => boolean;
  signal?: AbortSignal;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

export type ServerHealth = { name: string; failures: number; lastError?: string; usable: boolean };

export type LitePool = {
  /**
   * Runs one liteserver function; `method` names it for metrics (e.g. `getBlock`). `check` turns the
   * answer into the result and may throw (a hash that does not verify): that counts as that
   * server's failure and the query is retried on the next one.
   */
  query<REQ, RES, OUT = RES>(method: string, f: LiteFunction<REQ, RES>, req: REQ, check?: (res: RES) => OUT): Promise<OUT>;
  health(): { servers: ServerHealth[]; allFailing: boolean };
  close(): void;
};

export class LiteQueryError extends TonstreamError {
  readonly code = 'LITE_QUERY_FAILED';
  override readonly retriable = true;
  constructor(
    readonly method: string,
    readonly attempts: { server: string; error: string }[],
    options?: ErrorOptions,
  ) {
    super(`liteserver ${method} failed ${attempts.length} time(s): ${attempts.map((a) => `${a.server}: ${a.error}`).join('; ')}`, options);
  }
}

/** Every configured server answered that it does not have what was asked (`isGone`): final. */
export class GoneEverywhereError extends LiteQueryError {
  constructor(method: string, attempts: { server: string; error: string }[], options?: ErrorOptions) {
    super(method, attempts, options);
    this.message = `every liteserver answered ${method} with "not here": ${attempts.map((a) => `${a.server}: ${a.error}`).join('; ')}`;
  }
}

/** Carries an answer `isGone` accepted out of one attempt. */
class GoneAnswer extends TonstreamError {
  readonly code = 'LITE_NOT_HERE';
  constructor(readonly original: Error) {
    super(original.message, { cause: original });
  }
}

export class QueryTimeoutError extends TonstreamError {
  readonly code = 'LITE_TIMEOUT';
  override readonly retriable = true;
}

type ServerState = PoolServer & { failures: number; downUntil: number; lastError?: string };

export function createLitePool(options: LitePoolOptions): LitePool {
  const {
    timeoutMs = 10_000,
    attempts = 5,
    backoff = DEFAULT_BACKOFF,
    cooldownMs = 1_000,
    maxCooldownMs = 30_000,
    concurrency = 32,
    observer,
    isGone = () => false,
    signal,
    now = Date.now,
    random = Math.random,
    sleep = defaultSleep,
  } = options;
  if (options.servers.length === 0) throw new RangeError('a liteserver pool needs at least one server');
  const servers: ServerState[] = options.servers.map((s) => ({ ...s, failures: 0, downUntil: 0 }));
  const limit: Limiter = createLimiter(concurrency);
  let cursor = 0;

  /**
   * Next server in rotation, leaving out `skip`, that is connected and not cooling down; else the
   * one usable soonest. `skip` never holds every server.
   */
  const pick = (skip: ReadonlySet<ServerState>): ServerState => {
    const t = now();
    const inRotation = servers.map((_, i) => servers[(cursor + i) % servers.length]).filter((s) => !skip.has(s));
    const s = inRotation.find((x) => x.downUntil <= t && x.engine.isReady()) ?? inRotation.reduce((best, x) => (x.downUntil < best.downUntil ? x : best));
    cursor = (servers.indexOf(s) + 1) % servers.length;
    return s;
  };

  const answered = (s: ServerState) => {
    s.failures = 0;
    s.downUntil = 0;
    s.lastError = undefined;
  };

  const failed = (s: ServerState, error: Error) => {
    s.failures++;
    s.downUntil = now() + Math.min(maxCooldownMs, cooldownMs * 2 ** Math.min(s.failures - 1, 20));
    s.lastError = error.message;
  };

  const attempt = async <REQ, RES, OUT>(s: ServerState, method: string, f: LiteFunction<REQ, RES>, req: REQ, check: ((res: RES) => OUT) | undefined, n: number): Promise<OUT> => {
    const started = now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueryTimeoutError(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // ton-lite-client also times the query out itself, but never clears its timer (see README.md).
      const res = await Promise.race([s.engine.query(f as Parameters<QueryEngine['query']>[0], req, { timeout: timeoutMs }) as Promise<RES>, timeout]);
      const out = check ? check(res) : (res as unknown as OUT);
      answered(s);
      observer?.observeQuery({ server: s.name, method, durationMs: now() - started, result: 'ok', attempt: n });
      return out;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const isTimeout = error instanceof QueryTimeoutError || error.message === 'Timeout';
      const gone = !isTimeout && isGone(error, method);
      if (gone) answered(s);
      else failed(s, error);
      observer?.observeQuery({ server: s.name, method, durationMs: now() - started, result: isTimeout ? 'timeout' : gone ? 'gone' : 'error', attempt: n, error });
      throw gone ? new GoneAnswer(error) : error;
    } finally {
      clearTimeout(timer);
    }
  };

  const query = <REQ, RES, OUT = RES>(method: string, f: LiteFunction<REQ, RES>, req: REQ, check?: (res: RES) => OUT): Promise<OUT> =>
    limit(async () => {
      const answers: { server: string; error: string }[] = [];
      /** Servers that answered "not here": not asked again by this query. */
      const gone = new Set<ServerState>();
      let failures = 0;
      let backOff = false;
      let last: unknown;
      for (let n = 0; failures < attempts; n++) {
        if (backOff) await sleep(backoffDelay(failures - 1, backoff, random), signal);
        if (signal?.aborted) throw new AbortedError('aborted');
        const s = pick(gone);
        try {
          return await attempt(s, method, f, req, check, n);
        } catch (err) {
          const isGoneAnswer = err instanceof GoneAnswer;
          last = isGoneAnswer ? err.cause : err;
          answers.push({ server: s.name, error: (last as Error).message });
          if (isGoneAnswer) gone.add(s);
          else failures++;
          if (gone.size === servers.length) throw new GoneEverywhereError(method, answers, { cause: last });
          // "Not here" sends the query straight on to the next server; a failure backs off first.
          backOff = !isGoneAnswer;
        }
      }
      throw new LiteQueryError(method, answers, { cause: last });
    });

  return {
    query,
    health: () => {
      const t = now();
      const list = servers.map((s) => ({ name: s.name, failures: s.failures, lastError: s.lastError, usable: s.downUntil <= t && s.engine.isReady() }));
      return { servers: list, allFailing: servers.every((s) => s.failures > 0) };
    },
    close: () => {
      for (const s of servers) s.engine.close();
    },
  };
}
