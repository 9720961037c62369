/**
 * The lite_api function table the server dispatches on, built from ton-lite-client's generated
 * schema (`Functions`, `Codecs`) plus listBlockTransactionsExt and getOutMsgQueueSizes.
 *
 * The generated code has no id → name map and no list of which result constructors a function
 * may return, but its behaviour tells both: `encodeRequest` writes the function's constructor id
 * first, a boxed codec's `encode` writes the id of the constructor named by `kind` first (or throws
 * "Unknown type"), and `decodeResponse` reads a constructor id first and rejects foreign ones. We
 * run each once against a probe that records that first int32 and then stops.
 */
import { Codecs, Functions } from 'ton-lite-client/dist/schema.js';
import {
  BLOCK_TRANSACTIONS_EXT_ID,
  LIST_BLOCK_TRANSACTIONS_EXT_ID,
  decodeListArgs,
  decodeListBlockTransactionsExt,
  encodeBlockTransactionsExt,
  type BlockTransactionsExt,
  type ListBlockTransactionsExtRequest,
} from './list-block-transactions-ext.js';
import {
  GET_OUT_MSG_QUEUE_SIZES_ID,
  OUT_MSG_QUEUE_SIZES_ID,
  decodeGetOutMsgQueueSizes,
  encodeOutMsgQueueSizes,
  type GetOutMsgQueueSizesRequest,
  type OutMsgQueueSizes,
} from './out-msg-queue-sizes.js';
import { TlWriter, type TlReader } from './tl-buffer.js';
import { TonstreamError } from '@tonstream/errors';

type SchemaFunctions = typeof Functions;
/** Envelope constructors, handled by the dispatcher itself rather than by handlers. */
type Envelope = 'liteServer_query' | 'liteServer_queryPrefix' | 'liteServer_waitMasterchainSeqno';
type DotName<K extends string> = K extends `${infer A}_${infer B}` ? `${A}.${DotName<B>}` : K;
type RequestOf<F> = F extends { encodeRequest(src: infer Q, encoder: never): void } ? Q : never;
type ResultOf<F> = F extends { decodeResponse(decoder: never): infer R } ? R : never;

/** Params and result object type of every function the server can dispatch, by TL name. */
export type LiteFunctionMap = {
  [K in Exclude<keyof SchemaFunctions, Envelope> as DotName<K>]: { params: RequestOf<SchemaFunctions[K]>; result: ResultOf<SchemaFunctions[K]> };
} & {
  'liteServer.listBlockTransactionsExt': { params: ListBlockTransactionsExtRequest; result: BlockTransactionsExt };
  'liteServer.getOutMsgQueueSizes': { params: GetOutMsgQueueSizesRequest; result: OutMsgQueueSizes };
};
export type LiteMethod = keyof LiteFunctionMap;

/** Constructor ids the dispatcher handles itself. */
export const ID = {
  adnlMessageQuery: 0xb48bf97a | 0,
  adnlMessageAnswer: 0x0fac8416,
  tcpPing: 0x4d082b9a,
  tcpPong: 0xdc69fb03 | 0,
  liteServerQuery: 0x798c06df,
  liteServerQueryPrefix: 0x72d3e386,
  liteServerWaitMasterchainSeqno: 0xbaeab892 | 0,
  liteServerError: 0xbba9e148 | 0,
} as const;

export type FunctionEntry = {
  name: LiteMethod;
  id: number;
  decode(reader: TlReader): unknown;
  /** Result constructor names the function's return type admits. */
  resultKinds: ReadonlySet<string>;
};

type UntypedCodec = { encode(src: unknown, encoder: unknown): void; decode(decoder: unknown): unknown };
type UntypedFunction = { encodeRequest(src: unknown, encoder: unknown): void; decodeResponse(decoder: unknown): unknown };
const codecs = Codecs as unknown as Record<string, UntypedCodec>;
const functions = Functions as unknown as Record<string, UntypedFunction>;

const PROBE_STOP = Symbol('probe-stop');

/** The first int32 `run` writes, or undefined if it throws (or writes nothing) before that. */
function firstInt32Written(run: (encoder: unknown) => void): number | undefined {
  let id: number | undefined;
  const stop = () => {
    throw PROBE_STOP;
  };
  const probe = new Proxy({}, {
    get: (_t, method) => (method === 'writeInt32' ? (v: number) => ((id = v), stop()) : stop),
  });
  try {
    run(probe);
  } catch (e) {
    if (e !== PROBE_STOP) return undefined;
  }
  return id;
}

/** Whether `decodeResponse` accepts a response starting with constructor `id`. */
function acceptsConstructor(fn: UntypedFunction, id: number): boolean {
  let first = true;
  const stop = () => {
    throw PROBE_STOP;
  };
  const probe = new Proxy({}, {
    get: (_t, method) =>
      method === 'readInt32' || method === 'readUInt32'
        ? () => {
            if (!first) stop();
            first = false;
            return method === 'readInt32' ? id : id >>> 0;
          }
        : stop,
  });
  try {
    fn.decodeResponse(probe);
    return true;
  } catch (e) {
    return e === PROBE_STOP;
  }
}

const isBoxed = (key: string) => /^[A-Z]/.test(key.slice(key.lastIndexOf('_') + 1));
const dotName = (key: string) => key.replace(/_/g, '.');

type ResultEncoder = (value: unknown, writer: TlWriter) => void;

function buildTables() {
  const encoders = new Map<string, ResultEncoder>();
  const constructorIds = new Map<string, number>();
  const boxedKeys = Object.keys(codecs).filter(isBoxed);
  for (const key of Object.keys(codecs)) {
    if (isBoxed(key) || key in functions) continue;
    const kind = dotName(key);
    for (const boxedKey of boxedKeys) {
      const boxed = codecs[boxedKey];
      const id = firstInt32Written((e) => boxed.encode({ kind }, e));
      if (id === undefined) continue;
      constructorIds.set(kind, id);
      encoders.set(kind, (value, writer) => boxed.encode(value, writer));
      break;
    }
  }
  encoders.set('liteServer.blockTransactionsExt', (value, writer) => encodeBlockTransactionsExt(value as BlockTransactionsExt, writer));
  constructorIds.set('liteServer.blockTransactionsExt', BLOCK_TRANSACTIONS_EXT_ID);
  encoders.set('liteServer.outMsgQueueSizes', (value, writer) => encodeOutMsgQueueSizes(value as OutMsgQueueSizes, writer));
  constructorIds.set('liteServer.outMsgQueueSizes', OUT_MSG_QUEUE_SIZES_ID);

  const byId = new Map<number, FunctionEntry>();
  const envelopes = new Set(['liteServer_query', 'liteServer_queryPrefix', 'liteServer_waitMasterchainSeqno']);
  for (const [key, fn] of Object.entries(functions)) {
    if (envelopes.has(key)) continue;
    const id = firstInt32Written((e) => fn.encodeRequest({}, e));
    const codec = codecs[key];
    if (id === undefined || !codec) throw new Error(`ton-lite-client schema: cannot derive the constructor of ${key}`);
    const resultKinds = new Set<string>();
    for (const [kind, resultId] of constructorIds) if (acceptsConstructor(fn, resultId)) resultKinds.add(kind);
    const decode = (reader: TlReader) => codec.decode(reader);
    byId.set(id, { name: dotName(key) as LiteMethod, id, decode, resultKinds });
  }
  // Upstream `?true` flags carry no bytes; the generated codec reads a Bool for them.
  const list = byId.get(-1375942694);
  if (list?.name === 'liteServer.listBlockTransactions') {
    list.decode = (reader) => ({ kind: 'liteServer.listBlockTransactions', ...decodeListArgs(reader) });
  }
  byId.set(LIST_BLOCK_TRANSACTIONS_EXT_ID, {
    name: 'liteServer.listBlockTransactionsExt',
    id: LIST_BLOCK_TRANSACTIONS_EXT_ID,
    decode: decodeListBlockTransactionsExt,
    resultKinds: new Set(['liteServer.blockTransactionsExt']),
  });
  byId.set(GET_OUT_MSG_QUEUE_SIZES_ID, {
    name: 'liteServer.getOutMsgQueueSizes',
    id: GET_OUT_MSG_QUEUE_SIZES_ID,
    decode: decodeGetOutMsgQueueSizes,
    resultKinds: new Set(['liteServer.outMsgQueueSizes']),
  });
  return { encoders, byId };
}

const tables = buildTables();

/** Function by constructor id (signed int32, as read from the wire). */
export function functionById(id: number): FunctionEntry | undefined {
  return tables.byId.get(id);
}

/** Every function name the server can dispatch. */
export function functionNames(): LiteMethod[] {
  return [...tables.byId.values()].map((f) => f.name);
}

export class ResultTypeError extends TonstreamError {
  readonly code = 'TL_RESULT_TYPE';
}

/** Boxed TL bytes of a handler result for `fn`; a Uint8Array result is taken as already encoded. */
export function encodeResult(fn: FunctionEntry, result: unknown): Uint8Array {
  if (result instanceof Uint8Array) return result;
  const kind = typeof result === 'object' && result !== null ? (result as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !fn.resultKinds.has(kind)) {
    const got = typeof kind === 'string' ? kind : `a value without kind (${typeof result})`;
    throw new ResultTypeError(`${fn.name} returned ${got}, expected ${[...fn.resultKinds].join(' | ')}`);
  }
  const writer = new TlWriter();
  const encode = tables.encoders.get(kind);
  if (!encode) throw new ResultTypeError(`${fn.name}: no encoder for ${kind}`);
  try {
    encode(result, writer);
  } catch (cause) {
    throw new ResultTypeError(`${fn.name} returned a ${kind} that does not encode: ${(cause as Error).message}`, { cause });
  }
  return writer.build();
}

export function encodeError(code: number, message: string): Buffer {
  const writer = new TlWriter(64 + message.length * 3);
  writer.writeInt32(ID.liteServerError);
  writer.writeInt32(code);
  writer.writeString(message);
  return writer.build();
}
