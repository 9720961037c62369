import { recoverWith } from '@tonstream/errors';
import type { MessageRecord, TransactionRow } from '@tonstream/records';
import { readBlocks, readMessages, readTransactionBocs, readTransactionMessages, readTransactions, type ReadScope, type Store } from '@tonstream/store';
import { Cell, loadTransaction } from '@ton/core';
import { type Liteserver, LiteClientError } from '../chain/liteserver.js';
import { optional, type Param, required, withDefault } from '../http/params.js';
import { signedShard } from '../chain/block-ids.js';
import { type PageNote, V2Error, withPageNote } from './envelope.js';
import * as kinds from './kinds.js';
import { defineMethod, type V2Context } from './method.js';
import { transactionBocs } from './transaction-bocs.js';
import { extTransaction, extTransactionFromBoc, rawTransaction, rawTransactionExt, type Shaping } from './transaction-objects.js';

/**
 * Transaction methods (docs/toncenter-v2.md §2.3) from the index, bounded by the watermark: history of
 * any age the index holds, with no archival flag. The raw BoCs (`data`) come from the index too
 * (migration 12); the liteserver is asked only for those of transactions indexed before it.
 */

/** A bounded positive count with toncenter's messages (`limit should be positive`, …). */
function count(name: string, def: number, max: number): Param<number> {
  const base = withDefault(kinds.int32, def, `1..${max}; default ${def}.`);
  return {
    ...base,
    read(texts, n) {
      const v = base.read(texts, n);
      if (v <= 0) throw new V2Error(422, `${name} should be positive`);
      if (v > max) throw new V2Error(422, `${name} should be less or equal ${max}`);
      return v;
    },
  };
}

async function shape(store: Store, scope: ReadScope, lite: Liteserver, txs: TransactionRow[], testnet: boolean): Promise<Shaping> {
  const [messages, indexed] = await Promise.all([
    readTransactionMessages(store, scope, txs) as Promise<Map<string, MessageRecord>>,
    readTransactionBocs(store, scope, txs),
  ]);
  // One serialization (@ton/core's, as transactionBocs gives the liteserver's) whichever source a BoC
  // came from: the same cell in another cell order would make an answer change when the index catches up.
  const bocs = new Map([...indexed].map(([hash, boc]) => [hash, Cell.fromBase64(boc).toBoc().toString('base64')]));
  const missing = txs.filter((t) => !bocs.has(t.hash));
  if (missing.length > 0) for (const [hash, boc] of await transactionBocs(lite, missing).catch(recoverWith(new Map<string, string>()))) bocs.set(hash, boc);
  return { testnet, messages, bocs };
}

export const MAX_TRANSACTIONS = 1000;

const TRANSACTIONS_PARAMS = {
  address: required(kinds.address, 'Account address.'),
  limit: count('limit', 10, MAX_TRANSACTIONS),
  lt: optional(kinds.uint64, 'Start at this transaction (inclusive; with hash). 0 = the newest.'),
  hash: optional(kinds.hash, 'Hash of the start transaction (hex or base64; with lt).'),
  to_lt: withDefault(kinds.uint64, 0n, 'Stop at transactions with lt at or below this (excluded).'),
  archival: optional(kinds.bool, 'Accepted for compatibility: history comes from the index whatever its age.'),
};

/** One page of an account's indexed history, newest first, and the note when it is shorter than asked while history goes on. */
async function accountHistory(ctx: V2Context<typeof TRANSACTIONS_PARAMS>): Promise<{ txs: TransactionRow[]; shaping: Shaping; note?: PageNote }> {
  const { params: p, store, scope, lite, testnet } = ctx;
  const lt = p.lt === 0n ? undefined : p.lt;
  if ((lt === undefined) !== (p.hash === undefined)) throw new V2Error(422, 'lt and hash should be used together');
  const txs = await readTransactions(store, scope, { accounts: [p.address.raw], endLt: lt, startLt: p.to_lt > 0n ? p.to_lt + 1n : undefined }, { limit: p.limit, offset: 0, sort: 'desc', order: 'lt' });
  if (lt !== undefined && (txs.length === 0 || BigInt(txs[0].lt) !== lt || txs[0].hash !== p.hash)) {
    throw new V2Error(404, `transaction ${lt}:${p.hash} of ${p.address.raw} not found in the index (watermark ${scope.watermark ?? 'none'})`);
  }
  const shaping = await shape(store, scope, lite, txs, testnet);
  const last = txs[txs.length - 1];
  const historyGoesOn = last ? last.prev_trans_lt !== '0' && BigInt(last.prev_trans_lt) > p.to_lt : false;
  if (txs.length >= p.limit || !historyGoesOn) return { txs, shaping };
  return {
    txs,
    shaping,
    note: {
      requested: p.limit,
      returned: txs.length,
      complete: false,
      reason: 'the index holds no older transactions of this account: its history before them is not indexed',
      previous_transaction_id: { lt: last.prev_trans_lt, hash: last.prev_trans_hash },
    },
  };
}

export const getTransactions = defineMethod({
  name: 'getTransactions',
  summary: "An account's transactions, newest first, from the index (any age it holds)",
  source: 'index+liteserver',
  params: TRANSACTIONS_PARAMS,
  async handle(ctx) {
    let history;
    try {
      history = await accountHistory(ctx);
    } catch (err) {
      // A start the index does not hold yet (clients take it from the liteserver's account state, which
      // runs ahead of the watermark): the liteserver's history from there.
      if (err instanceof V2Error && err.status === 404 && ctx.params.lt) return chainHistory(ctx, err);
      throw err;
    }
    const list = history.txs.map((t) => extTransaction(t, history.shaping));
    return history.note ? withPageNote(list, history.note) : list;
  },
});

/** Upstream liteservers answer at most 16 transactions per getTransactions. */
const LITE_PAGE = 16;

/** `limit` transactions from (lt, hash) backwards, newest first, from the liteserver; `notFound` when it has none. */
async function chainHistory(ctx: V2Context<typeof TRANSACTIONS_PARAMS>, notFound: V2Error) {
  const { params: p, lite, testnet } = ctx;
  const out: ReturnType<typeof extTransactionFromBoc>[] = [];
  let lt = p.lt!;
  let hash = Buffer.from(p.hash!, 'base64');
  while (out.length < p.limit && lt > p.to_lt) {
    let cells: Cell[];
    try {
      const res = await lite.transactions(p.address, lt, hash, Math.min(LITE_PAGE, p.limit - out.length));
      cells = res.transactions.length > 0 ? Cell.fromBoc(Buffer.from(res.transactions)) : [];
    } catch (err) {
      if (out.length === 0 && err instanceof LiteClientError && err.status === 404) throw notFound;
      throw err;
    }
    if (cells.length === 0) break;
    for (const c of cells) {
      const tx = loadTransaction(c.beginParse());
      if (tx.lt <= p.to_lt || out.length >= p.limit) return out;
      out.push(extTransactionFromBoc(c, p.address.workchain, testnet));
      lt = tx.prevTransactionLt;
      hash = Buffer.from(tx.prevTransactionHash.toString(16).padStart(64, '0'), 'hex');
    }
    if (lt === 0n) break;
  }
  if (out.length === 0) throw notFound;
  return out;
}

export const getTransactionsStd = defineMethod({
  name: 'getTransactionsStd',
  summary: "An account's transactions in tonlib's raw.transactions shape, from the index",
  source: 'index+liteserver',
  params: TRANSACTIONS_PARAMS,
  async handle(ctx) {
    const { txs, shaping, note } = await accountHistory(ctx);
    const last = txs[txs.length - 1];
    const result = {
      '@type': 'raw.transactions',
      transactions: txs.map((t) => rawTransaction(t, shaping)),
      previous_transaction_id: { '@type': 'internal.transactionId', lt: last?.prev_trans_lt ?? '0', hash: last?.prev_trans_hash ?? Buffer.alloc(32).toString('base64') },
    };
    return note ? withPageNote(result, note) : result;
  },
});

const blockTxParams = {
  workchain: required(kinds.workchain, 'Workchain of the block.'),
  shard: required(kinds.shard, 'Shard id, signed decimal int64.'),
  seqno: required(kinds.seqno, 'Block seqno.'),
  root_hash: optional(kinds.hash, 'Root hash to check.'),
  file_hash: optional(kinds.hash, 'File hash to check.'),
  after_lt: optional(kinds.uint64, 'Continue after this transaction (with after_hash).'),
  after_hash: optional(kinds.hash, 'Account id (32 bytes, hex or base64) of the transaction to continue after.'),
  count: count('count', 40, 10_000),
};

/** Rows fetched per index query when reading a whole block. */
const BLOCK_PAGE = 1000;

/** One indexed block's transactions in the block's order (account, then lt), after a cursor, at most `count`. */
async function blockTransactions(store: Store, scope: ReadScope, p: { workchain: number; shard: bigint; seqno: number; root_hash?: string; file_hash?: string; after_lt?: bigint; after_hash?: string; count: number }) {
  if ((p.after_lt === undefined) !== (p.after_hash === undefined)) throw new V2Error(422, 'after_lt and after_hash should be used together');
  const [block] = await readBlocks(store, scope, { workchain: p.workchain, shard: p.shard, seqno: p.seqno }, { limit: 1, offset: 0, sort: 'asc', order: 'id' });
  const where = `(${p.workchain},${BigInt.asIntN(64, p.shard)},${p.seqno})`;
  if (!block) throw new V2Error(404, `block ${where} not found in the index (watermark ${scope.watermark ?? 'none'})`);
  if ((p.root_hash !== undefined && block.root_hash !== p.root_hash) || (p.file_hash !== undefined && block.file_hash !== p.file_hash)) throw new V2Error(404, `block ${where} with these hashes not found`);
  const all: TransactionRow[] = [];
  for (let offset = 0; ; offset += BLOCK_PAGE) {
    const page = await readTransactions(store, scope, { workchain: p.workchain, shard: p.shard, seqno: p.seqno }, { limit: BLOCK_PAGE, offset, sort: 'asc', order: 'lt' });
    all.push(...page);
    if (page.length < BLOCK_PAGE) break;
  }
  const key = (t: TransactionRow) => t.account.split(':')[1].toLowerCase();
  all.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : BigInt(a.lt) < BigInt(b.lt) ? -1 : 1));
  let start = 0;
  if (p.after_hash !== undefined) {
    const afterAccount = Buffer.from(p.after_hash, 'base64').toString('hex');
    start = all.findIndex((t) => key(t) > afterAccount || (key(t) === afterAccount && BigInt(t.lt) > p.after_lt!));
    if (start < 0) start = all.length;
  }
  const txs = all.slice(start, start + p.count);
  const id = { '@type': 'ton.blockIdExt', workchain: block.workchain, shard: signedShard(block.shard), seqno: block.seqno, root_hash: block.root_hash, file_hash: block.file_hash };
  return { id, txs, incomplete: start + p.count < all.length };
}

export const getBlockTransactions = defineMethod({
  name: 'getBlockTransactions',
  summary: "A block's transaction ids (account, lt, hash), from the index",
  source: 'index',
  params: blockTxParams,
  async handle({ params, store, scope }) {
    const { id, txs, incomplete } = await blockTransactions(store, scope, params);
    return {
      '@type': 'blocks.transactions',
      id,
      req_count: params.count,
      incomplete,
      transactions: txs.map((t) => ({ '@type': 'blocks.shortTxId', mode: 135, account: t.account, lt: t.lt, hash: t.hash })),
    };
  },
});

export const getBlockTransactionsExt = defineMethod({
  name: 'getBlockTransactionsExt',
  summary: "A block's transactions in full, from the index (BoCs the index lacks from the liteserver)",
  source: 'index+liteserver',
  params: blockTxParams,
  async handle({ params, store, scope, lite, testnet }) {
    const { id, txs, incomplete } = await blockTransactions(store, scope, params);
    const shaping = await shape(store, scope, lite, txs, testnet);
    return { '@type': 'blocks.transactionsExt', id, req_count: params.count, incomplete, transactions: txs.map((t) => rawTransactionExt(t, shaping)) };
  },
});

const locateParams = {
  source: required(kinds.address, 'Sender of the message.'),
  destination: required(kinds.address, 'Receiver of the message.'),
  created_lt: required(kinds.uint64, 'created_lt of the message.'),
};

function locate(name: string, side: 'in' | 'out', summary: string) {
  return defineMethod({
    name,
    summary,
    source: 'index+liteserver',
    params: locateParams,
    async handle({ params: p, store, scope, lite, testnet }) {
      const [found] = await readMessages(store, scope, { source: p.source.raw, destination: p.destination.raw, startLt: p.created_lt, endLt: p.created_lt }, { limit: 1, offset: 0, sort: 'asc', order: 'lt' });
      const txHash = side === 'in' ? found?.inTxHash : found?.outTxHash;
      if (!txHash) throw new V2Error(404, 'transaction not found');
      const txs = await readTransactions(store, scope, { hashes: [txHash] }, { limit: 1, offset: 0, sort: 'desc', order: 'lt' });
      if (txs.length === 0) throw new V2Error(404, 'transaction not found');
      return extTransaction(txs[0], await shape(store, scope, lite, txs, testnet));
    },
  });
}

export const tryLocateTx = locate('tryLocateTx', 'in', 'The transaction on the destination that received a message (same as tryLocateResultTx)');
export const tryLocateResultTx = locate('tryLocateResultTx', 'in', 'The transaction on the destination that received a message');
export const tryLocateSourceTx = locate('tryLocateSourceTx', 'out', 'The transaction on the source that sent a message');
