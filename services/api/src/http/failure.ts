import { randomUUID } from 'node:crypto';
import type { Logger } from '@tonstream/runtime';
import { StoreError } from '@tonstream/store';
import { ChainError } from '../chain/chain-error.js';
import { LiteClientError } from '../chain/liteserver.js';
import { HttpError } from './http-error.js';

/** `requestId`: the id under which the real error is logged, when the message is a generic one. */
export type Failure = { status: number; message: string; requestId?: string };

/**
 * The status and message a request's failure is answered with, the same for v2 (its envelope) and
 * v3 (`{"error"}`). The client's errors and the chain's keep theirs; failures of ours (the index
 * unreachable, a bug) answer a generic message, since their text can hold SQL, hosts and internals.
 * `context` goes into the log lines (the path or the v2 method).
 */
export function failureOf(err: unknown, logger: Logger, context: Record<string, unknown>): Failure {
  if (err instanceof HttpError || err instanceof ChainError || err instanceof LiteClientError) {
    if (err.status >= 500) logger.warn('request failed', { ...context, status: err.status, err: err.message });
    return { status: err.status, message: err.message };
  }
  const requestId = randomUUID();
  if (err instanceof StoreError && err.retriable) {
    logger.warn('request failed: index unavailable', { ...context, request_id: requestId, err });
    return { status: 503, message: 'index unavailable', requestId };
  }
  logger.error('request failed', { ...context, request_id: requestId, err });
  return { status: 500, message: 'internal server error', requestId };
}
