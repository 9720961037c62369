/** A cell or structure that cannot be built: overflow, a value out of range, an inconsistent description. */
export class BuildError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BuildError';
  }
}
