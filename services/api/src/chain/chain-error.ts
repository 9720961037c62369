import { TonstreamError } from '@tonstream/errors';

/**
 * A failure of a chain read or of what a client asked of the chain (a stack that cannot be read, a
 * message that is no external-in, an unreadable liteserver proof). `status` is the one toncenter
 * answers for it; v2 puts it in its envelope, v3 in `{"error"}` (http/failure.ts).
 */
export class ChainError extends TonstreamError {
  readonly code = 'CHAIN_ERROR';
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
