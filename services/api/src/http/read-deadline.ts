import { StoreError } from '@tonstream/store';
import type { Response } from 'express';

/** The index reads of one request: their deadline, and their end when the client goes away. */
export type ReadDeadline = {
  /** For the reads' `signal`: aborted at the deadline or when the client closes the connection first. */
  signal: AbortSignal;
  /** The client closed the connection before its answer: nobody is left to answer. */
  clientGone(): boolean;
  /** Whether `err` is the reads running out of time: this deadline, or ClickHouse's max_execution_time (159). */
  isTimeout(err: unknown): boolean;
  /** Stops the clock and the watch on the connection; call once the request is answered or failed. */
  end(): void;
};

/** Code of ClickHouse's TIMEOUT_EXCEEDED (max_execution_time). */
const TIMEOUT_EXCEEDED = 159;

export function readDeadline(res: Response, timeoutMs: number): ReadDeadline {
  const abort = new AbortController();
  let timedOut = false;
  let gone = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error(`deadline of ${timeoutMs} ms passed`));
  }, timeoutMs);
  // 'close' before the answer finished: the client went away (after it, it is the normal end).
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    abort.abort(new Error('client closed the connection'));
  };
  res.on('close', onClose);
  return {
    signal: abort.signal,
    clientGone: () => gone,
    isTimeout: (err) => (err instanceof StoreError ? timedOut || err.clickhouseCode === TIMEOUT_EXCEEDED : timedOut && err === abort.signal.reason),
    end() {
      clearTimeout(timer);
      res.off('close', onClose);
    },
  };
}
