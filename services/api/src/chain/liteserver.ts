/**
 * The API's link to the chain: liteservers from a TON global config (the one the fetcher reads),
 * queried with ton-lite-client's TL functions. Node-level v2 calls (state, get-methods, config,
 * sending, block lookups, proofs) go through here. Answers are ton-lite-client's TL objects;
 * failures are LiteserverError with the HTTP status the v2 envelope gives them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type BlockTransactionsExt, getOutMsgQueueSizes, listBlockTransactionsExt, type OutMsgQueueSizes, readGlobalConfig } from '@tonstream/liteserver';
import type { Logger } from '@tonstream/runtime';
import { type LiteEngine, LiteRoundRobinEngine, LiteSingleEngine } from 'ton-lite-client';
import {
  Functions,
  type liteServer_accountState,
  type liteServer_allShardsInfo,
  type liteServer_blockHeader,
  type liteServer_configInfo,
  type liteServer_libraryResult,
  type liteServer_masterchainInfoExt,
  type liteServer_partialBlockProof,
  type liteServer_runMethodResult,
  type liteServer_shardBlockProof,
  type liteServer_transactionList,
  type tonNode_blockIdExt,
} from 'ton-lite-client/dist/schema.js';

/** Per-query timeout: a get-method or a state on a busy liteserver answers within it. */
const QUERY_TIMEOUT_MS = 10_000;
/** How often a global config file that does not exist yet is looked for again. */
const CONFIG_POLL_MS = 500;
/**
 * How long the newest masterchain block is reused: every account call starts from it, so a burst
 * shares one getMasterchainInfoExt (toncenter's C++ server caches it for 1 s).
 */
const MASTERCHAIN_INFO_MAX_AGE_MS = 250;

/** runSmcMethod mode bits: 0 shard and state proofs, 2 the result stack. */
const RUN_SMC_MODE = 1 | 4;

export type BlockIdExt = tonNode_blockIdExt;
export type AccountRef = { workchain: number; hash: Uint8Array };
/** Exactly one of seqno, lt, utime. */
export type BlockLookup = { seqno: number } | { lt: bigint } | { utime: number };

/** A failed liteserver call, with the status the API answers it with. */
export class LiteserverError extends Error {
  override name = 'LiteserverError';
  constructor(
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export type Liteserver = {
  masterchainInfo(): Promise<liteServer_masterchainInfoExt>;
  lookupBlock(workchain: number, shard: bigint, by: BlockLookup): Promise<liteServer_blockHeader>;
  blockHeader(id: BlockIdExt): Promise<liteServer_blockHeader>;
  allShards(mc: BlockIdExt): Promise<liteServer_allShardsInfo>;
  accountState(mc: BlockIdExt, account: AccountRef): Promise<liteServer_accountState>;
  /** runSmcMethod with its result and proofs (the state proof holds the account's last transaction). */
  runMethod(mc: BlockIdExt, account: AccountRef, methodId: bigint, params: Buffer): Promise<liteServer_runMethodResult>;
  sendMessage(boc: Buffer): Promise<number>;
  configAll(mc: BlockIdExt): Promise<liteServer_configInfo>;
  libraries(hashes: Buffer[]): Promise<liteServer_libraryResult>;
  /** Up to `count` (≤16) transactions of an account, newest first, from (lt, hash) backwards. */
  transactions(account: AccountRef, lt: bigint, hash: Buffer, count: number): Promise<liteServer_transactionList>;
  blockTransactionsExt(id: BlockIdExt, count: number): Promise<BlockTransactionsExt>;
  shardBlockProof(id: BlockIdExt): Promise<liteServer_shardBlockProof>;
  /** liteServer.getBlockProof from `known` to `target` (mode 1 = target given). */
  blockProof(known: BlockIdExt, target: BlockIdExt): Promise<liteServer_partialBlockProof>;
  /** liteServer.getOutMsgQueueSizes of every shard (newer liteservers only: older ones answer 501). */
  outMsgQueueSizes(): Promise<OutMsgQueueSizes>;
  close(): void;
};

/** Translates ton-lite-client's failures (which keep only the liteserver's message) into statuses. */
export function liteError(err: unknown, method: string): LiteserverError {
  const message = err instanceof Error ? err.message : String(err);
  if (message === 'Timeout') return new LiteserverError(504, `LITE_SERVER_NETWORK: ${method} timed out`, { cause: err });
  if (message === 'Engine is closed') return new LiteserverError(503, `liteserver unavailable: not connected (${method})`, { cause: err });
  // Ours says "not implemented"; upstream's TL parser "Unknown constructor found" for a function it predates.
  if (/not implemented|unknown constructor|unknown query|unknown function/i.test(message)) return new LiteserverError(501, `LITE_SERVER_NOTIMPLEMENTED: ${method} is not supported by this liteserver (${message})`, { cause: err });
  if (/not found|not kept|not in db|unknown block|cannot load|cannot compute block/i.test(message)) return new LiteserverError(404, `LITE_SERVER_NOTREADY: ${message}`, { cause: err });
  return new LiteserverError(500, `LITE_SERVER_UNKNOWN: ${message}`, { cause: err });
}

const accountId = (a: AccountRef) => ({ kind: 'liteServer.accountId' as const, workchain: a.workchain, id: Buffer.from(a.hash) });

/** Liteserver calls over a ton-lite-client engine. */
export function createLiteserver(engine: LiteEngine): Liteserver {
  const query = async <REQ, RES>(method: string, f: { encodeRequest(src: REQ, e: never): void; decodeResponse(d: never): RES }, req: REQ): Promise<RES> => {
    try {
      return (await engine.query(f as never, req as never, { timeout: QUERY_TIMEOUT_MS })) as RES;
    } catch (err) {
      throw liteError(err, method);
    }
  };
  let head: { at: number; info: Promise<liteServer_masterchainInfoExt> } | undefined;
  return {
    masterchainInfo() {
      const now = Date.now();
      if (!head || now - head.at > MASTERCHAIN_INFO_MAX_AGE_MS) {
        const info = query('getMasterchainInfoExt', Functions.liteServer_getMasterchainInfoExt, { kind: 'liteServer.getMasterchainInfoExt', mode: 0 });
        head = { at: now, info };
        // A failure is not kept: the next call asks again.
        info.catch(() => {
          if (head?.info === info) head = undefined;
        });
      }
      return head.info;
    },
    lookupBlock(workchain, shard, by) {
      const mode = 'seqno' in by ? 1 : 'lt' in by ? 2 : 4;
      const id = { kind: 'tonNode.blockId' as const, workchain, shard: BigInt.asIntN(64, shard).toString(), seqno: 'seqno' in by ? by.seqno : 0 };
      return query('lookupBlock', Functions.liteServer_lookupBlock, {
        kind: 'liteServer.lookupBlock',
        mode,
        id,
        lt: 'lt' in by ? by.lt.toString() : null,
        utime: 'utime' in by ? by.utime : null,
      });
    },
    blockHeader: (id) => query('getBlockHeader', Functions.liteServer_getBlockHeader, { kind: 'liteServer.getBlockHeader', id, mode: 0 }),
    allShards: (id) => query('getAllShardsInfo', Functions.liteServer_getAllShardsInfo, { kind: 'liteServer.getAllShardsInfo', id }),
    accountState: (id, account) => query('getAccountState', Functions.liteServer_getAccountState, { kind: 'liteServer.getAccountState', id, account: accountId(account) }),
    runMethod: (id, account, methodId, params) =>
      query('runSmcMethod', Functions.liteServer_runSmcMethod, { kind: 'liteServer.runSmcMethod', mode: RUN_SMC_MODE, id, account: accountId(account), methodId: methodId.toString(), params }),
    async sendMessage(body) {
      const res = await query('sendMessage', Functions.liteServer_sendMessage, { kind: 'liteServer.sendMessage', body });
      return res.status;
    },
    configAll: (id) => query('getConfigAll', Functions.liteServer_getConfigAll, { kind: 'liteServer.getConfigAll', mode: 0, id }),
    libraries: (hashes) => query('getLibraries', Functions.liteServer_getLibraries, { kind: 'liteServer.getLibraries', libraryList: hashes }),
    transactions: (account, lt, hash, count) =>
      query('getTransactions', Functions.liteServer_getTransactions, { kind: 'liteServer.getTransactions', count, account: accountId(account), lt: lt.toString(), hash }),
    blockTransactionsExt: (id, count) =>
      query('listBlockTransactionsExt', listBlockTransactionsExt, { kind: 'liteServer.listBlockTransactionsExt', id, mode: 7, count, after: null, reverseOrder: null, wantProof: null }),
    shardBlockProof: (id) => query('getShardBlockProof', Functions.liteServer_getShardBlockProof, { kind: 'liteServer.getShardBlockProof', id }),
    blockProof: (knownBlock, targetBlock) => query('getBlockProof', Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 1, knownBlock, targetBlock }),
    outMsgQueueSizes: () => query('getOutMsgQueueSizes', getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 0, wc: null, shard: null }),
    close: () => engine.close(),
  };
}

/**
 * A Liteserver over every liteserver of the global config at `path`, which may not exist yet (under
 * `npm start` the local network writes it a moment after the API starts): until it does, calls fail
 * with 503 and the file is looked for every CONFIG_POLL_MS.
 */
export function connectLiteserver(path: string, logger: Logger): Liteserver {
  let inner: Liteserver | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const tryConnect = () => {
    if (closed) return;
    if (!existsSync(path)) {
      timer = setTimeout(tryConnect, CONFIG_POLL_MS);
      return;
    }
    try {
      const servers = readGlobalConfig(readFileSync(path, 'utf8'));
      const engines = servers.map((s) => {
        const e = new LiteSingleEngine({ host: `tcp://${s.host}:${s.port}`, publicKey: s.publicKey });
        // Without a listener an 'error' event would throw; the engine reconnects on its own.
        e.on('error', () => logger.debug('liteserver connection error', { server: `${s.host}:${s.port}` }));
        return e;
      });
      inner = createLiteserver(engines.length === 1 ? engines[0] : new LiteRoundRobinEngine(engines));
      logger.info('liteservers configured', { global_config: path, servers: servers.length });
    } catch (err) {
      logger.warn('cannot read the global config; retrying', { global_config: path, err: (err as Error).message });
      timer = setTimeout(tryConnect, CONFIG_POLL_MS * 10);
    }
  };
  tryConnect();
  const current = (): Liteserver => {
    if (!inner) throw new LiteserverError(503, `liteserver unavailable: global config ${path} not found yet`);
    return inner;
  };
  const forward =
    <K extends Exclude<keyof Liteserver, 'close'>>(k: K) =>
    (...args: Parameters<Liteserver[K]>) =>
      (current()[k] as (...a: Parameters<Liteserver[K]>) => ReturnType<Liteserver[K]>)(...args);
  return {
    masterchainInfo: forward('masterchainInfo'),
    lookupBlock: forward('lookupBlock'),
    blockHeader: forward('blockHeader'),
    allShards: forward('allShards'),
    accountState: forward('accountState'),
    runMethod: forward('runMethod'),
    sendMessage: forward('sendMessage'),
    configAll: forward('configAll'),
    libraries: forward('libraries'),
    transactions: forward('transactions'),
    blockTransactionsExt: forward('blockTransactionsExt'),
    shardBlockProof: forward('shardBlockProof'),
    blockProof: forward('blockProof'),
    outMsgQueueSizes: forward('outMsgQueueSizes'),
    close() {
      closed = true;
      clearTimeout(timer);
      inner?.close();
    },
  };
}

/** The Liteserver of an API started without a global config: every call is 503, saying so. */
export function noLiteserver(): Liteserver {
  const fail = async (): Promise<never> => {
    throw new LiteserverError(503, 'liteserver unavailable: the API runs without a global config (set API_GLOBAL_CONFIG)');
  };
  return {
    masterchainInfo: fail,
    lookupBlock: fail,
    blockHeader: fail,
    allShards: fail,
    accountState: fail,
    runMethod: fail,
    sendMessage: fail,
    configAll: fail,
    libraries: fail,
    transactions: fail,
    blockTransactionsExt: fail,
    shardBlockProof: fail,
    blockProof: fail,
    outMsgQueueSizes: fail,
    close: () => {},
  };
}
