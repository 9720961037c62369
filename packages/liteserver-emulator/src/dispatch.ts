/**
 * One lite query from the bytes of `adnl.message.query.query` to the bytes of the answer:
 *   liteServer.query{data = [liteServer.waitMasterchainSeqno] [liteServer.queryPrefix] fn(args)}
 * Every failure after the query id is known becomes liteServer.error, never a dropped connection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, LiteErrorAnswer } from './errors.js';
import type { LiteServerLogger } from './logger.js';
import { ID, ResultTypeError, encodeError, encodeResult, functionById, type LiteFunctionMap, type LiteMethod } from './schema.js';
import { TlReader } from './tl-buffer.js';

/** Poll period of the masterchain seqno while a query waits for it. */
export const WAIT_POLL_INTERVAL_MS = 20;
/** Upper bound on a waitMasterchainSeqno, whatever timeout the client asks for (upstream caps it too). */
export const WAIT_MAX_MS = 30_000;

type MaybePromise<T> = T | Promise<T>;

/**
 * Handler of one function: gets the decoded params (the codec's object, with `kind`), returns the
 * result object (with `kind`) or, to skip encoding, the boxed TL bytes of the result.
 */
export type LiteHandler<M extends LiteMethod> = (params: LiteFunctionMap[M]['params']) => MaybePromise<LiteFunctionMap[M]['result'] | Uint8Array>;

/** Handlers by TL function name, e.g. `'liteServer.getMasterchainInfo'`. */
export type LiteServerHandlers = { [M in LiteMethod]?: LiteHandler<M> };

export type DispatchOptions = {
  handlers: LiteServerHandlers;
  /** Current masterchain seqno for waitMasterchainSeqno; default: `last.seqno` of the getMasterchainInfo handler. */
  getMasterchainSeqno?: () => MaybePromise<number>;
  logger: LiteServerLogger;
  /** Aborted when the server closes; ends waits early. */
  signal: AbortSignal;
};

export type Dispatch = (query: Buffer) => Promise<Uint8Array>;

type Call = { fnId: number; params: Buffer; waitSeqno?: number; waitTimeoutMs?: number };

type UntypedHandler = (params: unknown) => MaybePromise<unknown>;

export function createDispatch(options: DispatchOptions): Dispatch {
  const handlers = options.handlers as Record<string, UntypedHandler | undefined>;
  const { logger, signal } = options;
  const currentSeqno = options.getMasterchainSeqno ?? seqnoFromMasterchainInfo(handlers['liteServer.getMasterchainInfo']);

  async function waitFor(seqno: number, timeoutMs: number, method: string): Promise<void> {
    if (!currentSeqno) return;
    const deadline = Date.now() + Math.min(Math.max(timeoutMs, 0), WAIT_MAX_MS);
    for (;;) {
      const last = await currentSeqno();
      if (last >= seqno) return;
      if (Date.now() >= deadline || signal.aborted) {
        throw new LiteErrorAnswer(ErrorCode.timeout, `${method}: masterchain seqno ${seqno} not reached within ${timeoutMs} ms (last ${last})`);
      }
      await sleep(WAIT_POLL_INTERVAL_MS, undefined, { ref: false }).catch(() => undefined);
    }
  }

  return async function dispatch(query: Buffer): Promise<Uint8Array> {
    let call: Call;
    try {
      call = parseQuery(query);
    } catch (e) {
      return encodeError(ErrorCode.protoviolation, `cannot parse query: ${(e as Error).message}`);
    }
    const fn = functionById(call.fnId);
    if (!fn) return encodeError(ErrorCode.protoviolation, `unknown function 0x${(call.fnId >>> 0).toString(16).padStart(8, '0')}`);
    const handler = handlers[fn.name];
    if (!handler) return encodeError(ErrorCode.protoviolation, `${fn.name} is not implemented by this liteserver`);
    let params: unknown;
    try {
      params = fn.decode(new TlReader(call.params));
    } catch (e) {
      return encodeError(ErrorCode.protoviolation, `cannot parse ${fn.name}: ${(e as Error).message}`);
    }
    try {
      if (call.waitSeqno !== undefined) await waitFor(call.waitSeqno, call.waitTimeoutMs ?? 0, fn.name);
      return encodeResult(fn, await handler(params));
    } catch (e) {
      if (e instanceof LiteErrorAnswer) return encodeError(e.liteCode, e.message);
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ResultTypeError) {
        logger.error('liteserver handler returned a wrong result', { method: fn.name, error: message });
        return encodeError(ErrorCode.error, message);
      }
      logger.warn('liteserver handler failed', { method: fn.name, error: message });
      return encodeError(ErrorCode.error, `${fn.name}: ${message}`);
    }
  };
}

/** Split the query into envelopes and the function call; `params` is the bytes after the function id. */
function parseQuery(query: Buffer): Call {
  let reader = new TlReader(query);
  if (reader.peekInt32() === ID.liteServerQuery) {
    reader.readInt32();
    reader = new TlReader(reader.readBuffer());
  }
  let waitSeqno: number | undefined;
  let waitTimeoutMs: number | undefined;
  for (;;) {
    const id = reader.readInt32();
    if (id === ID.liteServerWaitMasterchainSeqno) {
      // liteServer.waitMasterchainSeqno seqno:int timeout_ms:int
      waitSeqno = reader.readInt32();
      waitTimeoutMs = reader.readInt32();
    } else if (id !== ID.liteServerQueryPrefix) {
      return { fnId: id, params: reader.readObject(), waitSeqno, waitTimeoutMs };
    }
  }
}

function seqnoFromMasterchainInfo(handler: UntypedHandler | undefined): (() => Promise<number>) | undefined {
  if (!handler) return undefined;
  return async () => {
    const info = (await handler({ kind: 'liteServer.getMasterchainInfo' })) as { last?: { seqno?: number } };
    if (typeof info?.last?.seqno !== 'number') throw new Error('getMasterchainInfo handler result has no last.seqno');
    return info.last.seqno;
  };
}
