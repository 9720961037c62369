import { TonstreamError } from '@tonstream/errors';

/** A BoC that cannot be deserialized: bad magic, truncation, CRC mismatch, inconsistent counts, bad refs. */
export class BocError extends TonstreamError {
  readonly code = 'BOC_INVALID';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Cells that do not match the TL-B scheme being read. `path` names the structure being read
 * (e.g. `Block.extra.account_blocks`), `cell` and `bit` where the reader stood.
 */
export class TlbError extends TonstreamError {
  readonly code = 'TLB_INVALID';
  constructor(
    message: string,
    readonly path: string,
    readonly cell: number,
    readonly bit: number,
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${message} (cell ${cell}, bit ${bit})`, options);
  }
}
