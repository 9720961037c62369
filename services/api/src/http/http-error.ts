import { TonstreamError } from '@tonstream/errors';

/** An error with the HTTP status toncenter uses for it; the body is `{"error": message}` (v2: the envelope). */
export class HttpError extends TonstreamError {
  readonly code = 'HTTP_ERROR';
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
