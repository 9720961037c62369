/**
 * The liteserver methods (upstream lite_api.tl) answered from the local chain. Answers have the
 * shapes a mainnet liteserver gives, with unsigned proofs (see proofs.ts for what they prove).
 * getState assembles the shard state from the accounts (the chain keeps no shard states: its hash is
 * not the block's state_update). Not implemented (answered with liteServer.error 502): getValidatorStats, the *WithProof variants; getBlockProof serves forward links only (block-proof.ts).
 * getOutMsgQueueSizes counts the messages waiting for the next round (Chain.outMsgQueueSizes).
 */
import { createHash } from 'node:crypto';
import { Dictionary } from '@ton/core';
import { beginCell, type Cell, cellFromBoc, cellToBoc, prune } from '@tonstream/block';
import { ErrorCode, type LiteHandler, type LiteMethod, LiteErrorAnswer, type LiteServerHandlers } from '@tonstream/liteserver-emulator';
import { type Chain, MASTERCHAIN, ROOT_SHARD, shardOfAccount, stackFromBoc, type StoredBlock, type TxRecord } from '@tonstream/localnet';
import type { liteServer_accountId, liteServer_transactionId, liteServer_transactionId3, tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { partialBlockProof } from './block-proof.js';
import { createBlockViews } from './block-views.js';
import { accountStateProof, configStateProof, mcStateExtra, shardState, transactionsProof } from './proofs.js';
import { bitAt, hashmapLeaf, keyBits } from './proof-plan.js';
import { accountAddress, badRequest, blockNotFound, describeBlock, fromTlBlockId, hex, shardOf, toTlBlockId, translateError } from './tl.js';

/** What upstream liteservers report (validator/impl/liteserver.hpp: ls_version, ls_capabilities). */
export const LS_VERSION = 0x101;
export const LS_CAPABILITIES = 7n;
/** Upstream caps: transactions per listBlockTransactions and per getTransactions, libraries per getLibraries. */
export const MAX_LIST_TRANSACTIONS = 256;
export const MAX_ACCOUNT_TRANSACTIONS = 16;
export const MAX_LIBRARIES = 16;
/** Exit code runSmcMethod reports for an account without code (upstream: "account is not active"). */
export const EXIT_CODE_NOT_ACTIVE = -256;
/** getOutMsgQueueSizes' ext_msg_queue_size_limit: upstream collators skip low-priority externals above it (collator.cpp SKIP_EXTERNALS_QUEUE_SIZE). */
export const EXT_MSG_QUEUE_SIZE_LIMIT = 8000;

/** listBlockTransactions mode bits (lite_api.tl). */
const MODE = { account: 1, lt: 2, hash: 4, wantProof: 32, reverse: 64, after: 128 } as const;
/** runSmcMethod mode bits. */
const RUN = { proofs: 1, stateProof: 2, result: 4, initC7: 8, libExtras: 16 } as const;

const EMPTY = Buffer.alloc(0);

export type LiteHandlerOptions = {
  /** Current unix time for getTime and getVersion. @default the wall clock, never before the last block */
  now?: () => number;
};

export function createLiteHandlers(chain: Chain, options: LiteHandlerOptions = {}): LiteServerHandlers {
  const views = createBlockViews(chain);
  const zero = chain.zerostate();
  const init = { kind: 'tonNode.zeroStateIdExt', workchain: MASTERCHAIN, rootHash: Buffer.from(zero.rootHash, 'hex'), fileHash: Buffer.from(zero.fileHash, 'hex') } as const;
  const headBlock = () => chain.getBlock(chain.head())!;
  const now = options.now ?? (() => Math.max(Math.floor(Date.now() / 1000), headBlock().genUtime));

  const stored = (id: tonNode_blockIdExt): StoredBlock => {
    const ref = fromTlBlockId(id);
    const b = chain.getBlock(ref);
    if (!b || b.id.fileHash !== ref.fileHash) throw blockNotFound(ref);
    return b;
  };
  const masterBlock = (id: tonNode_blockIdExt): StoredBlock => {
    const b = stored(id);
    if (b.id.workchain !== MASTERCHAIN) throw badRequest(`block ${describeBlock(b.id)} is not a masterchain block`);
    return b;
  };
  const masterOf = (b: StoredBlock): StoredBlock => {
    const mc = views.masterOf(b);
    if (!mc) throw blockNotFound(b.id, 'masterchain block of the round no longer kept');
    return mc;
  };
  /** The chain's shard for a shard id that may be a prefix of it or an ancestor (upstream looks up by account prefix). */
  const resolveShard = (workchain: number, shard: bigint): bigint => {
    if (workchain === MASTERCHAIN) return ROOT_SHARD;
    if (workchain !== 0) throw blockNotFound({ workchain, shard, seqno: 0 }, 'no such workchain');
    return chain.shards.includes(shard) ? shard : shardOfAccount([...chain.shards], shard.toString(16).padStart(16, '0'));
  };
  const blockCells = (txs: readonly TxRecord[]): Cell[] => txs.map((t) => cellFromBoc(t.boc));
  const bocOf = (cells: Cell[]): Buffer => (cells.length === 0 ? EMPTY : Buffer.from(cellToBoc(cells)));
  const hiddenTxs = (b: StoredBlock, shown: readonly TxRecord[]) => {
    const keep = new Set(shown.map((t) => t.hash));
    return new Set(b.transactions.filter((t) => !keep.has(t.hash)).map((t) => t.hash));
  };

  /** The state proof pair (shard block header proof, state proof) and Account cell of getAccountState and runSmcMethod. */
  const accountAt = async (id: tonNode_blockIdExt, account: liteServer_accountId) => {
    const at = stored(id);
    const st = await chain.getAccountState(accountAddress(account), at.id);
    const shardBlock = chain.getBlock(st.shardBlock);
    const mc = chain.getBlock(st.block);
    if (!shardBlock || !mc) throw blockNotFound(st.shardBlock);
    const shardAccount = cellFromBoc(st.shardAccountBoc);
    const exists = st.status !== 'nonexist';
    const stateProof = accountStateProof(
      views.stateHeader(shardBlock),
      exists ? { addressHash: hex(account.id), balance: st.balance, shardAccount } : undefined,
      shardBlock.id.workchain === MASTERCHAIN ? prune(configStateRoot(mc)) : undefined,
    );
    return {
      st,
      accountCell: exists ? shardAccount.refs[0] : undefined,
      id: toTlBlockId(st.block),
      shardblk: toTlBlockId(st.shardBlock),
      shardProof: account.workchain === MASTERCHAIN ? EMPTY : views.shardHashes(mc).proof,
      proof: Buffer.from(cellToBoc([cellFromBoc(views.headerProof(shardBlock)), stateProof])),
    };
  };
  const configStateRoot = (mc: StoredBlock) => configStateProof(views.stateHeader(mc), views.mcStateExtra(mc)).refs[0];
  const configInfo = (p: { mode: number; id: tonNode_blockIdExt }, params?: number[]) => {
    const mc = masterBlock(p.id);
    return {
      kind: 'liteServer.configInfo' as const,
      mode: p.mode,
      id: toTlBlockId(mc.id),
      stateProof: views.headerProof(mc),
      configProof: Buffer.from(cellToBoc(configStateProof(views.stateHeader(mc), views.mcStateExtra(mc), params))),
    };
  };
  const selectTransactions = (b: StoredBlock, p: { mode: number; count: number; after: liteServer_transactionId3 | null }) => {
    const reverse = (p.mode & MODE.reverse) !== 0;
    const list = reverse ? [...b.transactions].reverse() : b.transactions;
    let start = 0;
    if (p.mode & MODE.after) {
      if (!p.after) throw badRequest('listBlockTransactions: mode bit 7 set without `after`');
      const account = hex(p.after.account);
      const lt = BigInt(p.after.lt);
      const past = (t: TxRecord) => {
        const c = t.addressHash < account ? -1 : t.addressHash > account ? 1 : t.lt < lt ? -1 : t.lt > lt ? 1 : 0;
        return reverse ? c < 0 : c > 0;
      };
      start = list.findIndex(past);
      if (start < 0) start = list.length;
    }
    const count = Math.min(p.count, MAX_LIST_TRANSACTIONS);
    return { txs: list.slice(start, start + count), incomplete: start + count < list.length };
  };

  const handlers: LiteServerHandlers = {
    'liteServer.getMasterchainInfo': () => {
      const head = headBlock();
      return { kind: 'liteServer.masterchainInfo', last: toTlBlockId(head.id), stateRootHash: Buffer.from(head.stateHash.new, 'hex'), init };
    },
    'liteServer.getMasterchainInfoExt': (p) => {
      const head = headBlock();
      return {
        kind: 'liteServer.masterchainInfoExt',
        mode: p.mode,
        version: LS_VERSION,
        capabilities: LS_CAPABILITIES.toString(),
        last: toTlBlockId(head.id),
        lastUtime: head.genUtime,
        now: now(),
        stateRootHash: Buffer.from(head.stateHash.new, 'hex'),
        init,
      };
    },
    'liteServer.getTime': () => ({ kind: 'liteServer.currentTime', now: now() }),
    'liteServer.getVersion': () => ({ kind: 'liteServer.version', mode: 0, version: LS_VERSION, capabilities: LS_CAPABILITIES.toString(), now: now() }),
    'liteServer.getBlock': (p) => {
      const b = stored(p.id);
      return { kind: 'liteServer.blockData', id: toTlBlockId(b.id), data: Buffer.from(b.boc.buffer, b.boc.byteOffset, b.boc.byteLength) };
    },
    'liteServer.getBlockHeader': (p) => {
      const b = stored(p.id);
      return { kind: 'liteServer.blockHeader', id: toTlBlockId(b.id), mode: p.mode, headerProof: views.headerProof(b) };
    },
    'liteServer.lookupBlock': (p) => {
      const by = p.mode & 1 ? { seqno: p.id.seqno } : p.mode & 2 && p.lt !== null ? { lt: BigInt(p.lt) } : p.mode & 4 && p.utime !== null ? { utime: p.utime } : undefined;
      if (!by || [1, 2, 4].filter((bit) => p.mode & bit).length !== 1) throw badRequest(`lookupBlock: exactly one of mode bits 0 (seqno), 1 (lt), 2 (utime) must be set, mode is ${p.mode}`);
      const shard = resolveShard(p.id.workchain, shardOf(p.id));
      const b = chain.lookupBlock(p.id.workchain, shard, by);
      if (!b) throw new LiteErrorAnswer(ErrorCode.notready, `block not found: ${describeBlock({ workchain: p.id.workchain, shard, seqno: p.id.seqno })} by ${JSON.stringify(by, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      return { kind: 'liteServer.blockHeader', id: toTlBlockId(b.id), mode: p.mode, headerProof: views.headerProof(b) };
    },
    'liteServer.getAllShardsInfo': (p) => {
      const mc = masterBlock(p.id);
      const { data, proof } = views.shardHashes(mc);
      return { kind: 'liteServer.allShardsInfo', id: toTlBlockId(mc.id), proof, data };
    },
    'liteServer.getShardInfo': (p) => {
      const mc = masterBlock(p.id);
      const root = views.shardHashes(mc).root;
      const leaf = root && hashmapLeaf(root, 32, keyBits(BigInt(p.workchain), 32));
      if (!leaf) throw new LiteErrorAnswer(ErrorCode.notready, `workchain ${p.workchain} has no shards in ${describeBlock(mc.id)}`);
      // bt_fork$1 left:^(BinTree X) right:^(BinTree X) | bt_leaf$0 leaf:X, walked along the asked shard's prefix bits.
      const want = shardOf(p);
      let node = leaf.cell.refs[0];
      let shard = ROOT_SHARD;
      for (let depth = 0; bitAt(node, 0) === 1; depth++) {
        const bit = (want >> BigInt(63 - depth)) & 1n;
        const half = ROOT_SHARD >> BigInt(depth + 1);
        shard = bit ? shard + half : shard - half;
        node = node.refs[Number(bit)];
      }
      const sb = chain.shardsAt(mc.id.seqno)?.find((b) => b.id.workchain === p.workchain && b.id.shard === shard);
      if ((p.exact && shard !== want) || !sb) throw new LiteErrorAnswer(ErrorCode.notready, `shard ${p.workchain}:${want.toString(16)} not found in ${describeBlock(mc.id)}`);
      return { kind: 'liteServer.shardInfo', id: toTlBlockId(mc.id), shardblk: toTlBlockId(sb.id), shardProof: views.shardHashes(mc).proof, shardDescr: shardDescrBoc(node) };
    },
    'liteServer.listBlockTransactions': (p) => {
      const b = stored(p.id);
      const { txs, incomplete } = selectTransactions(b, p);
      const m = p.mode;
      const ids: liteServer_transactionId[] = txs.map((t) => ({
        kind: 'liteServer.transactionId',
        mode: m & (MODE.account | MODE.lt | MODE.hash),
        account: m & MODE.account ? Buffer.from(t.addressHash, 'hex') : null,
        lt: m & MODE.lt ? t.lt.toString() : null,
        hash: m & MODE.hash ? Buffer.from(t.hash, 'hex') : null,
      }));
      const proof = m & MODE.wantProof ? Buffer.from(cellToBoc(transactionsProof(views.cell(b), new Set(b.transactions.map((t) => t.hash))))) : EMPTY;
      return { kind: 'liteServer.blockTransactions', id: toTlBlockId(b.id), reqCount: p.count, incomplete, ids, proof };
    },
    'liteServer.listBlockTransactionsExt': (p) => {
      const b = stored(p.id);
      const { txs, incomplete } = selectTransactions(b, p);
      const proof = p.mode & MODE.wantProof ? Buffer.from(cellToBoc(transactionsProof(views.cell(b), hiddenTxs(b, txs)))) : EMPTY;
      return { kind: 'liteServer.blockTransactionsExt', id: toTlBlockId(b.id), reqCount: p.count, incomplete, transactions: bocOf(blockCells(txs)), proof };
    },
    'liteServer.getOneTransaction': (p) => {
      const b = stored(p.id);
      const address = accountAddress(p.account);
      const lt = BigInt(p.lt);
      const tx = b.transactions.find((t) => t.account === address && t.lt === lt);
      // Upstream answers a transaction the block does not hold with empty bytes, not an error.
      if (!tx) return { kind: 'liteServer.transactionInfo', id: toTlBlockId(b.id), proof: EMPTY, transaction: EMPTY };
      return { kind: 'liteServer.transactionInfo', id: toTlBlockId(b.id), proof: Buffer.from(cellToBoc(transactionsProof(views.cell(b), hiddenTxs(b, [tx])))), transaction: Buffer.from(tx.boc) };
    },
    'liteServer.getTransactions': (p) => {
      const txs = chain.getTransactions(accountAddress(p.account), BigInt(p.lt), hex(p.hash), Math.min(p.count, MAX_ACCOUNT_TRANSACTIONS));
      return { kind: 'liteServer.transactionList', ids: txs.map((t) => toTlBlockId(t.block)), transactions: bocOf(blockCells(txs)) };
    },
    'liteServer.getAccountState': async (p) => {
      const a = await accountAt(p.id, p.account);
      return { kind: 'liteServer.accountState', id: a.id, shardblk: a.shardblk, shardProof: a.shardProof, proof: a.proof, state: a.accountCell ? Buffer.from(cellToBoc(a.accountCell)) : EMPTY };
    },
    'liteServer.getState': async (p) => {
      const b = stored(p.id);
      const accounts = (await chain.shardAccountsAt(b.id)).map((a) => ({ addressHash: a.addressHash, balance: a.balance, shardAccount: cellFromBoc(a.shardAccountBoc) }));
      const custom = b.id.workchain === MASTERCHAIN ? mcStateExtra(views.mcStateExtra(b)) : undefined;
      const state = shardState(views.stateHeader(b), accounts, custom);
      const data = Buffer.from(cellToBoc(state));
      return { kind: 'liteServer.blockState', id: toTlBlockId(b.id), rootHash: Buffer.from(state.hash()), fileHash: createHash('sha256').update(data).digest(), data };
    },
    'liteServer.getAccountStatePrunned': async (p) => {
      const a = await accountAt(p.id, p.account);
      return { kind: 'liteServer.accountState', id: a.id, shardblk: a.shardblk, shardProof: a.shardProof, proof: a.proof, state: a.accountCell ? Buffer.from(cellToBoc(prune(a.accountCell))) : EMPTY };
    },
    'liteServer.runSmcMethod': async (p) => {
      const a = await accountAt(p.id, p.account);
      const m = p.mode;
      const opt = (bit: number, v: () => Buffer) => (m & bit ? v() : null);
      const common = {
        kind: 'liteServer.runMethodResult' as const,
        mode: m,
        id: a.id,
        shardblk: a.shardblk,
        shardProof: opt(RUN.proofs, () => a.shardProof),
        proof: opt(RUN.proofs, () => a.proof),
        stateProof: opt(RUN.stateProof, () => (a.accountCell ? Buffer.from(cellToBoc(a.accountCell)) : EMPTY)),
        initC7: opt(RUN.initC7, () => EMPTY),
        libExtras: opt(RUN.libExtras, () => EMPTY),
      };
      if (a.st.status !== 'active') return { ...common, exitCode: EXIT_CODE_NOT_ACTIVE, result: opt(RUN.result, () => EMPTY) };
      let stack;
      try {
        stack = stackFromBoc(p.params);
      } catch (err) {
        throw badRequest(`runSmcMethod: params is not a VmStack BoC: ${(err as Error).message}`);
      }
      const out = await chain.runGetMethod(accountAddress(p.account), Number(BigInt(p.methodId)), stack, fromTlBlockId(p.id));
      return { ...common, exitCode: out.exitCode, result: opt(RUN.result, () => Buffer.from(out.stackBoc)) };
    },
    'liteServer.sendMessage': async (p) => {
      await chain.checkExternal(p.body);
      chain.submitExternal(p.body);
      return { kind: 'liteServer.sendMsgStatus', status: 1 };
    },
    'liteServer.getConfigAll': (p) => configInfo(p),
    'liteServer.getConfigParams': (p) => configInfo(p, p.paramList),
    'liteServer.getLibraries': (p) => {
      if (p.libraryList.length > MAX_LIBRARIES) throw badRequest(`getLibraries: at most ${MAX_LIBRARIES} libraries per query, got ${p.libraryList.length}`);
      const libs = chain.sandbox.libs;
      const dict = libs ? Dictionary.loadDirect(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell(), libs) : undefined;
      const result = [];
      for (const hash of new Set(p.libraryList.map((h) => hex(h)))) {
        const lib = dict?.get(BigInt(`0x${hash}`));
        if (lib) result.push({ kind: 'liteServer.libraryEntry' as const, hash: Buffer.from(hash, 'hex'), data: lib.toBoc() });
      }
      return { kind: 'liteServer.libraryResult', result };
    },
    'liteServer.getBlockProof': (p) => {
      const from = masterBlock(p.knownBlock);
      // mode bit 0: target_block given; otherwise the last masterchain block.
      const to = p.mode & 1 && p.targetBlock ? masterBlock(p.targetBlock) : headBlock();
      return partialBlockProof(chain, views, from, to);
    },
    'liteServer.getOutMsgQueueSizes': (p) => {
      // mode bit 0: only the shards intersecting (wc, shard), as upstream filters them.
      const only = p.mode & 1 && p.wc !== null && p.shard !== null ? { workchain: p.wc, shard: shardOf({ shard: p.shard }) } : undefined;
      const shards = chain
        .outMsgQueueSizes()
        .filter((q) => !only || (q.block.workchain === only.workchain && shardsIntersect(q.block.shard, only.shard)))
        .map((q) => ({ kind: 'liteServer.outMsgQueueSize' as const, id: toTlBlockId(q.block), size: q.size }));
      return { kind: 'liteServer.outMsgQueueSizes', shards, extMsgQueueSizeLimit: EXT_MSG_QUEUE_SIZE_LIMIT };
    },
    'liteServer.getShardBlockProof': (p) => {
      const b = stored(p.id);
      if (b.id.workchain === MASTERCHAIN) return { kind: 'liteServer.shardBlockProof', masterchainId: toTlBlockId(b.id), links: [] };
      // Every shard block is committed by the masterchain block of its own round: one link suffices.
      const mc = masterOf(b);
      return { kind: 'liteServer.shardBlockProof', masterchainId: toTlBlockId(mc.id), links: [{ kind: 'liteServer.shardBlockLink', id: toTlBlockId(b.id), proof: views.shardHashes(mc).proof }] };
    },
  };
  return guardAll(handlers);
}

/** Whether two shards (unsigned, tag bit included) share accounts: the shorter prefix is a prefix of the longer. */
function shardsIntersect(a: bigint, b: bigint): boolean {
  const [wide, narrow] = (a & -a) >= (b & -b) ? [a, b] : [b, a];
  const mask = BigInt.asUintN(64, ~((wide & -wide) * 2n - 1n));
  return (wide & mask) === (narrow & mask);
}

/** shard_descr as a cell of its own: the bin tree leaf without its bt_leaf$0 tag. */
function shardDescrBoc(leaf: Cell): Buffer {
  return Buffer.from(cellToBoc(beginCell().storeCellContents(leaf, 1).endCell()));
}

/** Chain errors become liteServer.error codes (other errors are left to the dispatcher). */
function guardAll(handlers: LiteServerHandlers): LiteServerHandlers {
  const out: Record<string, LiteHandler<LiteMethod>> = {};
  for (const [name, handler] of Object.entries(handlers) as [LiteMethod, LiteHandler<LiteMethod>][]) {
    out[name] = async (params) => {
      try {
        return await handler(params);
      } catch (err) {
        throw translateError(err);
      }
    };
  }
  return out as LiteServerHandlers;
}
