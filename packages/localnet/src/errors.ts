import { TonstreamError } from '@tonstream/errors';

/**
 * The one error class of the local chain. `code` tells the caller (e.g. a liteserver handler) how to
 * answer: `not_found` (block, transaction or state not kept), `bad_request` (malformed input), or
 * `failed` (the chain itself could not proceed).
 */
export class LocalnetError extends TonstreamError {
  override readonly name = 'LocalnetError';
  constructor(
    readonly code: 'not_found' | 'bad_request' | 'failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
