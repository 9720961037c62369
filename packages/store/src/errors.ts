/**
 * Errors from ClickHouse, translated once. @clickhouse/client cannot parse 18.16's error text (it
 * lacks the trailing type name), so the code is read from `Code: N` ourselves.
 */
export class StoreError extends Error {
  constructor(
    message: string,
    /** ClickHouse error code when the server answered; undefined for transport errors. */
    readonly code: number | undefined,
    /** True when retrying the same request later can succeed (server down, timeouts, overload). */
    readonly retriable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** Codes worth retrying: timeouts, too many parts/queries, memory limits, network and shutdown. */
const RETRIABLE_CODES = new Set([159, 160, 164, 202, 203, 209, 210, 241, 252, 394, 425]);
const TRANSPORT = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket hang up|Timeout error|other side closed/i;

export function toStoreError(err: unknown, what: string): StoreError {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const match = /Code: (\d+)/.exec(message);
  const code = match ? Number(match[1]) : undefined;
  const retriable = code === undefined ? TRANSPORT.test(message) || /fetch failed|connect/i.test(message) : RETRIABLE_CODES.has(code);
  return new StoreError(`${what}: ${message.split(', e.what()')[0]}`, code, retriable, { cause: err });
}
