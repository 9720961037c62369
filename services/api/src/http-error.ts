/** An error with the HTTP status toncenter uses for it; the body is `{"error": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
