import { masterchainBlockIndexed, readAccountStatesByHash, readTransactionMessages, readTransactions, readTransactionTraceIds, type Page, type TransactionFilter } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { buildAddressBook } from '../address-book.js';
import { defineEndpoint, type EndpointContext } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, optional, type Params, required, sort } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { TransactionsResponse } from './schemas.js';
import { toV3Transaction } from './objects.js';

/**
 * Transactions of a filter with their messages and account states joined back and the
 * `address_book` (account, in_msg.source, out_msgs[].destination), as TransactionsResponse.
 */
export async function transactionsResponse<P extends Params>(ctx: EndpointContext<P>, filter: TransactionFilter, page: Page & { order: 'lt' | 'now' }) {
  const { store, scope, settings, testnet } = ctx;
  const rows = await readTransactions(store, scope, filter, page);
  const stateHashes = rows.flatMap((t) => [
    { account: t.account, hash: t.account_state_hash_before, lt: t.prev_trans_lt, tx: t.prev_trans_hash },
    { account: t.account, hash: t.account_state_hash_after, lt: t.lt, tx: t.hash },
  ]);
  const [messages, states, traceIds] = await Promise.all([
    readTransactionMessages(store, scope, rows),
    readAccountStatesByHash(store, scope, stateHashes),
    readTransactionTraceIds(store, scope, rows.map((t) => t.hash)),
  ]);
  // trace_id is omitted until the tracer has stored the transaction's trace (toncenter: omitempty).
  const transactions = rows.map((t) => {
    const traceId = traceIds.get(t.hash);
    return traceId === undefined ? toV3Transaction(t, messages, states) : { ...toV3Transaction(t, messages, states), trace_id: traceId };
  });
  const addresses = transactions.flatMap((t) => [t.account, t.in_msg?.source ?? null, ...t.out_msgs.map((m) => m.destination)]);
  const address_book = settings.noAddressBook ? {} : await buildAddressBook(store, scope, addresses, testnet);
  return { transactions, address_book };
}

/** 404 `masterchain block N not found` unless the block is stored and at or below the watermark. */
async function requireMasterchainBlock<P extends Params>(ctx: EndpointContext<P>, seqno: number): Promise<void> {
  if (!(await masterchainBlockIndexed(ctx.store, ctx.scope, seqno))) throw new HttpError(404, `masterchain block ${seqno} not found`);
}

/**
 * GET /transactions: docs/toncenter-v3.md §2.1. Order: `lt <sort>, account asc`; with a utime bound
 * `now, lt`. `exclude_account` is accepted and ignored, as toncenter does.
 */
export const transactionsEndpoint = defineEndpoint({
  path: '/transactions',
  operationId: 'getTransactions',
  summary: 'Transactions by block, masterchain seqno, account, hash, lt or time',
  tag: 'transactions',
  // The chain's newest transactions and a block's are an explorer's front page: one read per watermark.
  // (A transaction's trace_id appears once the tracer stored its trace, so the traces watermark is in the key.)
  sharedPerWatermark: (p) => p.account === undefined && p.hash === undefined,
  params: {
    workchain: optional(kinds.int32, 'Workchain of the block.'),
    shard: optional(kinds.shard, 'Shard of the block, hex first, then signed decimal.'),
    seqno: optional(kinds.int32, 'Seqno of the block.'),
    mc_seqno: optional(kinds.int32, 'Committed by this masterchain block; 404 when it is not indexed.'),
    account: list(kinds.address, 'Account addresses (repeat the key).'),
    exclude_account: list(kinds.address, 'Accepted and ignored, as toncenter does.'),
    hash: list(kinds.hash, 'Transaction hashes (repeat the key).'),
    lt: optional(kinds.uint64, 'Exact lt.'),
    start_utime: optional(kinds.utime, 'now >= start_utime; orders by now.'),
    end_utime: optional(kinds.utime, 'now <= end_utime; orders by now.'),
    start_lt: optional(kinds.uint64, 'lt >= start_lt.'),
    end_lt: optional(kinds.uint64, 'lt <= end_lt.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  },
  response: ref(TransactionsResponse),
  notFound: 'masterchain block N not found (with mc_seqno)',
  async handle(ctx) {
    const p = ctx.params;
    if (p.mc_seqno !== undefined) await requireMasterchainBlock(ctx, p.mc_seqno);
    const byTime = p.start_utime !== undefined || p.end_utime !== undefined;
    return transactionsResponse(
      ctx,
      {
        workchain: p.workchain, shard: p.shard, seqno: p.seqno, mcSeqno: p.mc_seqno, accounts: p.account, hashes: p.hash, lt: p.lt,
        startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt, endLt: p.end_lt,
      },
      { limit: p.limit, offset: p.offset, sort: p.sort, order: byTime ? 'now' : 'lt' },
    );
  },
});

/** GET /transactionsByMasterchainBlock: transactions of the masterchain block and the shard blocks it commits. */
export const transactionsByMasterchainBlockEndpoint = defineEndpoint({
  path: '/transactionsByMasterchainBlock',
  operationId: 'getTransactionsByMasterchainBlock',
  summary: 'Transactions committed by a masterchain block',
  tag: 'transactions',
  params: {
    seqno: required(kinds.int32, 'Masterchain block seqno.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc', 'Order by lt (then account ascending); default desc.'),
  },
  response: ref(TransactionsResponse),
  notFound: 'masterchain block N not found',
  async handle(ctx) {
    const p = ctx.params;
    await requireMasterchainBlock(ctx, p.seqno);
    return transactionsResponse(ctx, { mcSeqno: p.seqno }, { limit: p.limit, offset: p.offset, sort: p.sort, order: 'lt' });
  },
});
