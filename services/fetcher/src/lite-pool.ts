/**
 * Liteserver queries over several servers: round robin, skipping servers that failed recently
 * (cooldown growing with consecutive failures), a per-query timeout, and bounded retries with
 * backoff, each retry on the next server. Every attempt is reported to an observer (metrics).
 */
import type { LiteEngine } from 'ton-lite-client';
import { createLimiter, type Limiter } from './limit.js';
import { AbortedError, backoffDelay, type BackoffOptions, DEFAULT_BACKOFF, sleep as defaultSleep } from './retry.js';

/** What the pool needs of a ton-lite-client engine (`LiteSingleEngine` fits; tests pass fakes). */
export type QueryEngine = Pick<LiteEngine, 'query' | 'isReady' | 'close'>;

/** A ton-lite-client TL function (`Functions.liteServer_getBlock`…), typed by request and result. */
export type LiteFunction<REQ, RES> = { encodeRequest(src: REQ, encoder: unknown): void; decodeResponse(decoder: unknown): RES };

export type PoolServer = { /** `host:port`, for logs and metric labels. */ name: string; engine: QueryEngine };

export type QueryResult = 'ok' | 'error' | 'timeout';

export type QueryEvent = { server: string; method: string; durationMs: number; result: QueryResult; attempt: number; error?: Error };

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
  /** Queries in flight over all servers. @default 32 */
  concurrency?: number;
  observer?: (event: QueryEvent) => void;
  /**
   * Answers that are final: not retried, and the server is not put in cooldown (it answered).
   * E.g. "state already garbage-collected". @default none
   */
  isDefinitive?: (error: Error) => boolean;
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

export class LiteQueryError extends Error {
  override name = 'LiteQueryError';
  constructor(
    readonly method: string,
    readonly attempts: { server: string; error: string }[],
    options?: ErrorOptions,
  ) {
    super(`liteserver ${method} failed ${attempts.length} time(s): ${attempts.map((a) => `${a.server}: ${a.error}`).join('; ')}`, options);
  }
}

/** Carries an answer `isDefinitive` accepted out of the retry loop. */
class DefinitiveAnswer extends Error {
  constructor(readonly original: Error) {
    super(original.message, { cause: original });
  }
}

export class QueryTimeoutError extends Error {
  override name = 'QueryTimeoutError';
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
    isDefinitive = () => false,
    signal,
    now = Date.now,
    random = Math.random,
    sleep = defaultSleep,
  } = options;
  if (options.servers.length === 0) throw new RangeError('a liteserver pool needs at least one server');
  const servers: ServerState[] = options.servers.map((s) => ({ ...s, failures: 0, downUntil: 0 }));
  const limit: Limiter = createLimiter(concurrency);
  let cursor = 0;

  /** Next server in rotation that is connected and not cooling down; else the one usable soonest. */
  const pick = (): ServerState => {
    const t = now();
    for (let i = 0; i < servers.length; i++) {
      const s = servers[(cursor + i) % servers.length];
      if (s.downUntil <= t && s.engine.isReady()) {
        cursor = (cursor + i + 1) % servers.length;
        return s;
      }
    }
    const s = servers.reduce((best, x) => (x.downUntil < best.downUntil ? x : best), servers[cursor % servers.length]);
    cursor = (servers.indexOf(s) + 1) % servers.length;
    return s;
  };

  const attempt = async <REQ, RES, OUT>(s: ServerState, method: string, f: LiteFunction<REQ, RES>, req: REQ, check: ((res: RES) => OUT) | undefined, n: number): Promise<OUT> => {
    const started = now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueryTimeoutError(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // ton-lite-client also times the query out itself, but never clears its timer (see README).
      const res = await Promise.race([s.engine.query(f as Parameters<QueryEngine['query']>[0], req, { timeout: timeoutMs }) as Promise<RES>, timeout]);
      const out = check ? check(res) : (res as unknown as OUT);
      s.failures = 0;
      s.downUntil = 0;
      s.lastError = undefined;
      observer?.({ server: s.name, method, durationMs: now() - started, result: 'ok', attempt: n });
      return out;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const isTimeout = error instanceof QueryTimeoutError || error.message === 'Timeout';
      const definitive = !isTimeout && isDefinitive(error);
      if (!definitive) {
        s.failures++;
        s.downUntil = now() + Math.min(maxCooldownMs, cooldownMs * 2 ** Math.min(s.failures - 1, 20));
        s.lastError = error.message;
      }
      observer?.({ server: s.name, method, durationMs: now() - started, result: isTimeout ? 'timeout' : 'error', attempt: n, error });
      throw definitive ? new DefinitiveAnswer(error) : error;
    } finally {
      clearTimeout(timer);
    }
  };

  const query = <REQ, RES, OUT = RES>(method: string, f: LiteFunction<REQ, RES>, req: REQ, check?: (res: RES) => OUT): Promise<OUT> =>
    limit(async () => {
      const failed: { server: string; error: string }[] = [];
      let last: unknown;
      for (let n = 0; n < attempts; n++) {
        if (n > 0) await sleep(backoffDelay(n - 1, backoff, random), signal);
        if (signal?.aborted) throw new AbortedError('aborted');
        const s = pick();
        try {
          return await attempt(s, method, f, req, check, n);
        } catch (err) {
          const definitive = err instanceof DefinitiveAnswer;
          last = definitive ? err.cause : err;
          failed.push({ server: s.name, error: (last as Error).message });
          if (definitive) break;
        }
      }
      throw new LiteQueryError(method, failed, { cause: last });
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
