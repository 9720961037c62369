import { TonstreamError } from '@tonstream/errors';

/** Error codes of upstream `common/errorcode.h`, as real liteservers put them in liteServer.error. */
export const ErrorCode = {
  error: 500,
  warning: 501,
  protoviolation: 502,
  notready: 651,
  timeout: 652,
  cancelled: 653,
} as const;

/**
 * The server's side: thrown by a handler to answer `liteServer.error{code, message}`; the connection
 * stays open. Any other exception is answered with code 500 and its message. (A client's failure is
 * `LiteQueryError` of @tonstream/lite-client.)
 */
export class LiteErrorAnswer extends TonstreamError {
  readonly code = 'LITE_ERROR_ANSWER';
  /** The liteServer.error code (`ErrorCode`). */
  readonly liteCode: number;

  constructor(liteCode: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.liteCode = liteCode;
  }
}
