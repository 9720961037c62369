/**
 * The liteserver reads the services make, over a LitePool: one method per lite_api function used
 * (TL objects in and out, as ton-lite-client's schema types them). `method` labels in the
 * observer's events are the lite_api names without `liteServer.`.
 */
import { type BlockTransactionsExt, getOutMsgQueueSizes, listBlockTransactionsExt, type OutMsgQueueSizes } from '@tonstream/liteserver-emulator';
import {
  Functions,
  type liteServer_accountState,
  type liteServer_allShardsInfo,
  type liteServer_blockData,
  type liteServer_blockState,
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
import type { LitePool } from './pool.js';

/** runSmcMethod mode bits: 0 shard and state proofs, 2 the result stack. */
const RUN_SMC_MODE = 1 | 4;

export type BlockIdExt = tonNode_blockIdExt;

/**
 * A block id as the pipeline's records write it (shard as 16 hex digits, hashes in base64) in the TL
 * form liteservers take (shard as a signed 64-bit decimal).
 */
export function toTlBlockId(id: { workchain: number; shard: string; seqno: number; root_hash: string; file_hash: string }): BlockIdExt {
  return {
    kind: 'tonNode.blockIdExt',
    workchain: id.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${id.shard}`)).toString(),
    seqno: id.seqno,
    rootHash: Buffer.from(id.root_hash, 'base64'),
    fileHash: Buffer.from(id.file_hash, 'base64'),
  };
}
export type AccountRef = { workchain: number; hash: Uint8Array };
/** Exactly one of seqno, lt, utime. */
export type BlockLookup = { seqno: number } | { lt: bigint } | { utime: number };
/**
 * Checks an answer and turns it into the result; a throw counts as that server failing, and the
 * query goes on to the next one (a block whose hash does not verify).
 */
export type Check<RES, OUT> = (res: RES) => OUT;

export type LiteReads = {
  /** The newest masterchain block; reused for `masterchainInfoMaxAgeMs`. */
  masterchainInfo(): Promise<liteServer_masterchainInfoExt>;
  lookupBlock<OUT = liteServer_blockHeader>(workchain: number, shard: bigint, by: BlockLookup, check?: Check<liteServer_blockHeader, OUT>): Promise<OUT>;
  blockHeader(id: BlockIdExt): Promise<liteServer_blockHeader>;
  /** liteServer.getBlock: the block's BoC. */
  block<OUT = liteServer_blockData>(id: BlockIdExt, check?: Check<liteServer_blockData, OUT>): Promise<OUT>;
  allShards(mc: BlockIdExt): Promise<liteServer_allShardsInfo>;
  /** liteServer.getState: the BoC of the shard state after the block (liteservers that serve whole states only). */
  state(id: BlockIdExt): Promise<liteServer_blockState>;
  accountState<OUT = liteServer_accountState>(mc: BlockIdExt, account: AccountRef, check?: Check<liteServer_accountState, OUT>): Promise<OUT>;
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
  /** liteServer.getOutMsgQueueSizes of every shard (newer liteservers only). */
  outMsgQueueSizes(): Promise<OutMsgQueueSizes>;
  /** Closes every connection of the pool. */
  close(): void;
};

export type LiteReadsOptions = {
  /**
   * How long the newest masterchain block is reused: when every call starts from it, a burst shares
   * one getMasterchainInfoExt. A failure is never reused. @default 0 (ask every time)
   */
  masterchainInfoMaxAgeMs?: number;
  now?: () => number;
};

const accountId = (a: AccountRef) => ({ kind: 'liteServer.accountId' as const, workchain: a.workchain, id: Buffer.from(a.hash) });

export function createLiteReads(pool: LitePool, options: LiteReadsOptions = {}): LiteReads {
  const { masterchainInfoMaxAgeMs = 0, now = Date.now } = options;
  let head: { at: number; info: Promise<liteServer_masterchainInfoExt> } | undefined;
  return {
    masterchainInfo() {
      const t = now();
      if (masterchainInfoMaxAgeMs === 0 || !head || t - head.at > masterchainInfoMaxAgeMs) {
        const info = pool.query('getMasterchainInfoExt', Functions.liteServer_getMasterchainInfoExt, { kind: 'liteServer.getMasterchainInfoExt', mode: 0 });
        head = { at: t, info };
        info.catch(() => {
          if (head?.info === info) head = undefined;
        });
      }
      return head.info;
    },
    lookupBlock(workchain, shard, by, check) {
      const mode = 'seqno' in by ? 1 : 'lt' in by ? 2 : 4;
      const id = { kind: 'tonNode.blockId' as const, workchain, shard: BigInt.asIntN(64, shard).toString(), seqno: 'seqno' in by ? by.seqno : 0 };
      const req = { kind: 'liteServer.lookupBlock' as const, mode, id, lt: 'lt' in by ? by.lt.toString() : null, utime: 'utime' in by ? by.utime : null };
      return pool.query('lookupBlock', Functions.liteServer_lookupBlock, req, check);
    },
    blockHeader: (id) => pool.query('getBlockHeader', Functions.liteServer_getBlockHeader, { kind: 'liteServer.getBlockHeader', id, mode: 0 }),
    block: (id, check) => pool.query('getBlock', Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id }, check),
    state: (id) => pool.query('getState', Functions.liteServer_getState, { kind: 'liteServer.getState', id }),
    allShards: (id) => pool.query('getAllShardsInfo', Functions.liteServer_getAllShardsInfo, { kind: 'liteServer.getAllShardsInfo', id }),
    accountState: (id, account, check) => pool.query('getAccountState', Functions.liteServer_getAccountState, { kind: 'liteServer.getAccountState', id, account: accountId(account) }, check),
    runMethod: (id, account, methodId, params) =>
      pool.query('runSmcMethod', Functions.liteServer_runSmcMethod, { kind: 'liteServer.runSmcMethod', mode: RUN_SMC_MODE, id, account: accountId(account), methodId: methodId.toString(), params }),
    sendMessage: (body) => pool.query('sendMessage', Functions.liteServer_sendMessage, { kind: 'liteServer.sendMessage', body }, (res) => res.status),
    configAll: (id) => pool.query('getConfigAll', Functions.liteServer_getConfigAll, { kind: 'liteServer.getConfigAll', mode: 0, id }),
    libraries: (hashes) => pool.query('getLibraries', Functions.liteServer_getLibraries, { kind: 'liteServer.getLibraries', libraryList: hashes }),
    transactions: (account, lt, hash, count) =>
      pool.query('getTransactions', Functions.liteServer_getTransactions, { kind: 'liteServer.getTransactions', count, account: accountId(account), lt: lt.toString(), hash }),
    blockTransactionsExt: (id, count) =>
      pool.query('listBlockTransactionsExt', listBlockTransactionsExt, { kind: 'liteServer.listBlockTransactionsExt', id, mode: 7, count, after: null, reverseOrder: null, wantProof: null }),
    shardBlockProof: (id) => pool.query('getShardBlockProof', Functions.liteServer_getShardBlockProof, { kind: 'liteServer.getShardBlockProof', id }),
    blockProof: (knownBlock, targetBlock) => pool.query('getBlockProof', Functions.liteServer_getBlockProof, { kind: 'liteServer.getBlockProof', mode: 1, knownBlock, targetBlock }),
    outMsgQueueSizes: () => pool.query('getOutMsgQueueSizes', getOutMsgQueueSizes, { kind: 'liteServer.getOutMsgQueueSizes', mode: 0, wc: null, shard: null }),
    close: () => pool.close(),
  };
}
