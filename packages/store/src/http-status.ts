import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

/** The HTTP status of the answer one store call got; undefined when no answer came (connection refused, reset). */
export type HttpAnswer = { status?: number };

const current = new AsyncLocalStorage<HttpAnswer>();
let subscribed = false;

function onRequestStart(message: unknown): void {
  const answer = current.getStore();
  if (answer) (message as { request: ClientRequest }).request.once('response', (res: IncomingMessage) => (answer.status = res.statusCode));
}

/**
 * Runs `call` (one @clickhouse/client request), noting the HTTP status of the answer in `answer`.
 * The client turns a failed answer into an Error holding only the body, so a proxy's 502 page
 * (no ClickHouse `Code: N`) would look like any error of ours; the status tells them apart.
 */
export function withHttpStatus<T>(answer: HttpAnswer, call: () => Promise<T>): Promise<T> {
  if (!subscribed) {
    subscribed = true;
    subscribe('http.client.request.start', onRequestStart);
  }
  return current.run(answer, call);
}
