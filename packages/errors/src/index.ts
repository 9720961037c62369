/**
 * The base of every error tonstream throws on purpose. `code` is stable and machine-readable (logs,
 * metrics and tests match on it, never on the message); `retriable` says whether the same operation
 * can succeed when tried again later (a server away, a timeout, overload); `cause` is the standard one.
 * Subclasses declare `readonly code = 'SOME_CODE'` and, when it applies, `override readonly retriable = true`.
 */
export abstract class TonstreamError extends Error {
  abstract readonly code: string;
  readonly retriable: boolean = false;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** True for an error whose `retriable` flag is set: ours, and kafkajs's, which carry the same flag. */
export function isRetriable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === true;
}

/**
 * True for an error that means our code is wrong rather than its input or the world: a ReferenceError,
 * or a TypeError raised by the engine itself ("cannot read properties of undefined", "x is not a
 * function", mixing BigInt and number). Not counted: TypeErrors Node raises with a `code`
 * (ERR_INVALID_URL, invalid UTF-8 under a fatal TextDecoder) and fetch's `fetch failed`, which has a
 * `cause`: those come from input or the network. RangeError and SyntaxError are not counted either:
 * here they come from built-ins given bad input (`BigInt('x')`, `JSON.parse`, a Buffer read past its
 * end, an invalid date). A TonstreamError is never one.
 */
export function isProgrammingError(err: unknown): boolean {
  if (err instanceof TonstreamError) return false;
  if (err instanceof ReferenceError) return true;
  return err instanceof TypeError && (err as { code?: unknown }).code === undefined && err.cause === undefined;
}

/** For a catch that deliberately ignores expected failures: lets programming errors through. */
export function rethrowBugs(err: unknown): void {
  if (isProgrammingError(err)) throw err;
}

/** For `promise.catch(recoverWith(value))`: `value` on an expected failure; a programming error goes on. */
export function recoverWith<T>(value: T): (err: unknown) => T {
  return (err) => {
    rethrowBugs(err);
    return value;
  };
}
