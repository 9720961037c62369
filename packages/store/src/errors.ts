import { ClickHouseError } from '@clickhouse/client';
import { TonstreamError } from '@tonstream/errors';

/**
 * Errors from ClickHouse, translated once. @clickhouse/client cannot parse 18.16's error text (it
 * lacks the trailing type name), so the code is read from `Code: N` ourselves when the client did not.
 */
export class StoreError extends TonstreamError {
  constructor(
    message: string,
    /** ClickHouse error code when the server answered; undefined for transport errors. */
    readonly clickhouseCode: number | undefined,
    /** True when retrying the same request later can succeed (server down, timeouts, overload). */
    override readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** STORE_UNAVAILABLE when trying again later can succeed, STORE_REJECTED when ClickHouse refused the request itself. */
  get code(): 'STORE_UNAVAILABLE' | 'STORE_REJECTED' {
    return this.retriable ? 'STORE_UNAVAILABLE' : 'STORE_REJECTED';
  }
}

/**
 * Codes worth retrying: TIMEOUT_EXCEEDED 159, TOO_SLOW 160, READONLY 164, TOO_MANY_SIMULTANEOUS_QUERIES 202,
 * NO_FREE_CONNECTION 203, SOCKET_TIMEOUT 209, NETWORK_ERROR 210, NO_ZOOKEEPER 225, MEMORY_LIMIT_EXCEEDED 241,
 * TABLE_IS_READ_ONLY 242 (a replica lost Keeper), TOO_MANY_PARTS 252, ALL_CONNECTION_TRIES_FAILED 279 (no
 * replica of a shard answered), TOO_FEW_LIVE_REPLICAS 285, UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE 286 (until
 * the replica that missed the last quorum insert is back), UNKNOWN_STATUS_OF_INSERT 319 (the insert may
 * have happened: safe to repeat, rows are idempotent), QUERY_WAS_CANCELLED 394, SYSTEM_ERROR 425,
 * KEEPER_EXCEPTION 999.
 */
const RETRIABLE_CODES = new Set([159, 160, 164, 202, 203, 209, 210, 225, 241, 242, 252, 279, 285, 286, 319, 394, 425, 999]);
/** Enough of a proxy's error page to say who answered. */
const FOREIGN_BODY_CHARS = 200;
const TRANSPORT = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket hang up|Timeout error|other side closed/i;

/**
 * `httpStatus`: the status of the HTTP answer, when one came. An answer without a ClickHouse code is
 * not ClickHouse's: a 5xx from a proxy or load balancer in front of it (its upstream is away) is
 * retried like a refused connection; a 4xx (auth, wrong path) is not.
 */
export function toStoreError(err: unknown, what: string, httpStatus?: number): StoreError {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const parsed = err instanceof ClickHouseError ? err.code : /Code: (\d+)/.exec(message)?.[1];
  const code = parsed === undefined ? undefined : Number(parsed);
  // Not ClickHouse's answer (an HTML error page, or nothing): its status says what it was.
  const foreign = code === undefined && httpStatus !== undefined && httpStatus >= 400;
  const retriable = code === undefined ? (foreign && httpStatus >= 500) || TRANSPORT.test(message) || /fetch failed|connect/i.test(message) : RETRIABLE_CODES.has(code);
  const text = foreign ? `HTTP ${httpStatus} ${message.slice(0, FOREIGN_BODY_CHARS)}` : message.split(', e.what()')[0];
  return new StoreError(`${what}: ${text}`, code, retriable, { cause: err });
}
