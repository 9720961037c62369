import { TonstreamError } from '@tonstream/errors';

/** A cell or structure that cannot be built: overflow, a value out of range, an inconsistent description. */
export class BuildError extends TonstreamError {
  readonly code = 'CELL_BUILD';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
