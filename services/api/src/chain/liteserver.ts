/**
 * The API's link to the chain: @tonstream/lite-client's reads over every liteserver of a TON global
 * config (the one the fetcher reads). Node-level v2 calls (state, get-methods, config, sending,
 * block lookups, proofs) go through here. Answers are ton-lite-client's TL objects; failures are
 * LiteClientError with the HTTP status the v2 envelope gives them.
 */
import { AbortedError, connectLitePool, createLitePool, createLiteReads, GlobalConfigMissingError, type LiteReads, loadGlobalConfig, type LitePool, LiteQueryError, type QueryEngine, QueryTimeoutError } from '@tonstream/lite-client';
import { createLiteQueryMetrics, type Logger } from '@tonstream/runtime';
import type { Registry } from 'prom-client';
import { TonstreamError } from '@tonstream/errors';

export type { AccountRef, BlockIdExt, BlockLookup } from '@tonstream/lite-client';

/** Per-query timeout: a get-method or a state on a busy liteserver answers within it. */
const QUERY_TIMEOUT_MS = 10_000;
/** How often a global config file that does not exist yet is looked for again. */
const CONFIG_POLL_MS = 500;
/** Warn about an unreadable global config every this many looks (~5 s). */
const CONFIG_WARN_EVERY = 10;
/**
 * How long the newest masterchain block is reused: every account call starts from it, so a burst
 * shares one getMasterchainInfoExt (toncenter's C++ server caches it for 1 s).
 */
const MASTERCHAIN_INFO_MAX_AGE_MS = 250;

/** A failed liteserver call (the client's side: timeout, no connection, or the server's error answer), with the status the API answers it with. */
export class LiteClientError extends TonstreamError {
  readonly code = 'LITE_CLIENT';
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The reads the API makes; every failure is a LiteClientError. */
export type Liteserver = Omit<LiteReads, 'block' | 'state'>;
type Method = Exclude<keyof Liteserver, 'close'>;
const METHODS: Record<Method, true> = {
  masterchainInfo: true,
  lookupBlock: true,
  blockHeader: true,
  allShards: true,
  accountState: true,
  runMethod: true,
  sendMessage: true,
  configAll: true,
  libraries: true,
  transactions: true,
  blockTransactionsExt: true,
  shardBlockProof: true,
  blockProof: true,
  outMsgQueueSizes: true,
};

/** Translates ton-lite-client's failures (which keep only the liteserver's message) into statuses. */
export function liteError(err: unknown, method: string): LiteClientError {
  const failure = err instanceof LiteQueryError ? err.cause : err;
  const message = failure instanceof Error ? failure.message : String(failure);
  if (message === 'Timeout' || failure instanceof QueryTimeoutError) return new LiteClientError(504, `LITE_SERVER_NETWORK: ${method} timed out`, { cause: err });
  if (message === 'Engine is closed') return new LiteClientError(503, `liteserver unavailable: not connected (${method})`, { cause: err });
  // Ours says "not implemented"; upstream's TL parser "Unknown constructor found" for a function it predates.
  if (/not implemented|unknown constructor|unknown query|unknown function/i.test(message)) return new LiteClientError(501, `LITE_SERVER_NOTIMPLEMENTED: ${method} is not supported by this liteserver (${message})`, { cause: err });
  if (/not found|not kept|not in db|unknown block|cannot load|cannot compute block/i.test(message)) return new LiteClientError(404, `LITE_SERVER_NOTREADY: ${message}`, { cause: err });
  return new LiteClientError(500, `LITE_SERVER_UNKNOWN: ${message}`, { cause: err });
}

/**
 * One attempt per call, never queued: a client waits for its own answer only (the fetcher retries;
 * an API caller retries itself). The pool still routes around a server that failed.
 */
const POOL_OPTIONS = { attempts: 1, timeoutMs: QUERY_TIMEOUT_MS, concurrency: Infinity };

/** Every method of `reads` with its failures as LiteClientError. */
function withStatuses(reads: LiteReads): Liteserver {
  const out = { close: () => reads.close() } as Liteserver;
  for (const k of Object.keys(METHODS) as Method[]) {
    const call = reads[k] as (...a: unknown[]) => Promise<unknown>;
    (out as Record<Method, unknown>)[k] = (...args: unknown[]) =>
      call(...args).catch((err: unknown) => {
        throw liteError(err, err instanceof LiteQueryError ? err.method : k);
      });
  }
  return out;
}

/** Liteserver calls over one ton-lite-client engine (tests hand in their own). */
export function createLiteserver(engine: QueryEngine): Liteserver {
  return fromPool(createLitePool({ ...POOL_OPTIONS, servers: [{ name: 'liteserver', engine }] }));
}

const fromPool = (pool: LitePool) => withStatuses(createLiteReads(pool, { masterchainInfoMaxAgeMs: MASTERCHAIN_INFO_MAX_AGE_MS }));

/**
 * A Liteserver over every liteserver of the global config at `path`, which may not exist yet (under
 * `npm start` the local network writes it a moment after the API starts): until it does, calls fail
 * with 503 and the file is looked for every CONFIG_POLL_MS. With `registry`, each query attempt is
 * counted in `tonstream_api_liteserver_*`.
 */
export function connectLiteserver(path: string, logger: Logger, registry?: Registry): Liteserver {
  let inner: Liteserver | undefined;
  let closed = false;
  const abort = new AbortController();
  void (async () => {
    const { liteservers } = await loadGlobalConfig(path, {
      signal: abort.signal,
      backoff: { baseMs: CONFIG_POLL_MS, maxMs: CONFIG_POLL_MS },
      onRetry: (err, attempt) => {
        if (!(err instanceof GlobalConfigMissingError) && attempt % CONFIG_WARN_EVERY === 0) logger.warn('cannot read the global config; retrying', { global_config: path, err: err.message });
      },
    });
    const pool = await connectLitePool(liteservers, {
      ...POOL_OPTIONS,
      observer: registry && createLiteQueryMetrics(registry, 'api'),
      readyTimeoutMs: 0,
      onConnectionError: (server) => logger.debug('liteserver connection error', { server }),
    });
    if (closed) return pool.close();
    inner = fromPool(pool);
    logger.info('liteservers configured', { global_config: path, servers: liteservers.length });
  })().catch((err: unknown) => {
    if (!(err instanceof AbortedError)) logger.error('liteservers not configured', { global_config: path, err });
  });
  const current = (): Liteserver => {
    if (!inner) throw new LiteClientError(503, `liteserver unavailable: global config ${path} not found yet`);
    return inner;
  };
  const out = {
    close() {
      closed = true;
      abort.abort();
      inner?.close();
    },
  } as Liteserver;
  for (const k of Object.keys(METHODS) as Method[]) {
    (out as Record<Method, unknown>)[k] = (...args: unknown[]) => (current()[k] as (...a: unknown[]) => Promise<unknown>)(...args);
  }
  return out;
}

/** The Liteserver of an API started without a global config: every call is 503, saying so. */
export function noLiteserver(): Liteserver {
  const fail = async (): Promise<never> => {
    throw new LiteClientError(503, 'liteserver unavailable: the API runs without a global config (set API_GLOBAL_CONFIG)');
  };
  const out = { close: () => {} } as Liteserver;
  for (const k of Object.keys(METHODS) as Method[]) (out as Record<Method, unknown>)[k] = fail;
  return out;
}
