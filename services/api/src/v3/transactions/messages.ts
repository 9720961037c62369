import { readAdjacentTransactionHashes, readMessages, readTransactions } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { sideObjects } from '../side-objects.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { MAX_LIMIT, limit, list, offset, optional, required, sort } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { MessagesResponse, TransactionsResponse } from './schemas.js';
import { toV3Message } from './objects.js';
import { transactionsResponse } from './transactions.js';

/**
 * GET /messages: docs/toncenter-v3.md §2.1. One row per message hash (its in and out sides, as stored at
 * or below the watermark and matching the filter, grouped) with `in_msg_tx_hash` / `out_msg_tx_hash`.
 * Order: created_lt (created_at with a utime bound) <sort>, then hash; rows without one (external-in)
 * sort as toncenter's NULLs: last ascending, first descending.
 */
export const messagesEndpoint = defineEndpoint({
  path: '/messages',
  operationId: 'getMessages',
  summary: 'Messages by hash, body hash, source, destination, opcode, time or lt',
  tag: 'transactions',
  params: {
    msg_hash: list(kinds.hash, 'Message hashes (repeat the key); also matches the normalised hash (TEP-467) of external-in messages.'),
    hash: optional(kinds.hash, 'Alias of msg_hash (one value), used when msg_hash is absent.'),
    body_hash: optional(kinds.hash, 'Hash of the message body.'),
    source: optional(kinds.addressNullable, 'Source address; `null` for external-in messages.'),
    destination: optional(kinds.addressNullable, 'Destination address; `null` for external-out messages.'),
    opcode: optional(kinds.opcode, 'Body opcode: hex first, then signed 32-bit decimal.'),
    start_utime: optional(kinds.utime, 'created_at >= start_utime; orders by created_at.'),
    end_utime: optional(kinds.utime, 'created_at <= end_utime; orders by created_at.'),
    start_lt: optional(kinds.uint64, 'created_lt >= start_lt.'),
    end_lt: optional(kinds.uint64, 'created_lt <= end_lt.'),
    direction: optional(kinds.direction, 'Side of the message: in (received by a transaction) or out (sent).'),
    exclude_externals: optional(kinds.bool, 'Drop messages without the order column (external-in).'),
    only_externals: optional(kinds.bool, 'Only messages without the order column (external-in).'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  },
  response: ref(MessagesResponse),
  async handle({ params: p, store, scope, settings, testnet }) {
    const hashes = p.msg_hash ?? (p.hash === undefined ? undefined : [p.hash]);
    const byTime = p.start_utime !== undefined || p.end_utime !== undefined;
    const found = await readMessages(
      store,
      scope,
      {
        hashes, bodyHash: p.body_hash, source: p.source, destination: p.destination, opcode: p.opcode, direction: p.direction,
        startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt, endLt: p.end_lt,
        excludeExternals: p.exclude_externals, onlyExternals: p.only_externals,
      },
      { limit: p.limit, offset: p.offset, sort: p.sort, order: byTime ? 'utime' : 'lt' },
    );
    const messages = found.map(({ message, inTxHash, outTxHash }) => ({
      ...toV3Message(message),
      ...(inTxHash === null ? {} : { in_msg_tx_hash: inTxHash }),
      ...(outTxHash === null ? {} : { out_msg_tx_hash: outTxHash }),
    }));
    const addresses = messages.flatMap((m) => [m.source, m.destination]);
    return { messages, ...(await sideObjects({ settings, store, scope, testnet }, addresses)) };
  },
});

/**
 * GET /transactionsByMessage: transactions having a message that matches (a list: message hashes can
 * collide). `opcode` looks at in messages only, as toncenter. Order: lt <sort> (default desc), account.
 */
export const transactionsByMessageEndpoint = defineEndpoint({
  path: '/transactionsByMessage',
  operationId: 'getTransactionsByMessage',
  summary: 'Transactions by a message hash, body hash or opcode',
  tag: 'transactions',
  params: {
    msg_hash: list(kinds.hash, 'Message hashes (repeat the key); also matches the normalised hash (TEP-467).'),
    body_hash: optional(kinds.hash, 'Hash of the message body.'),
    opcode: optional(kinds.opcode, 'Opcode of the in message: hex first, then signed 32-bit decimal.'),
    direction: optional(kinds.direction, 'in: the transaction received the message; out: it sent it.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc', 'Order by lt (then account ascending); default desc.'),
  },
  response: ref(TransactionsResponse),
  async handle(ctx) {
    const p = ctx.params;
    if (p.msg_hash === undefined && p.body_hash === undefined && p.opcode === undefined) {
      throw new HttpError(422, 'at least one of msg_hash, body_hash, opcode should be specified');
    }
    const direction = p.opcode !== undefined && p.direction === undefined ? 'in' : p.direction;
    const message = { hashes: p.msg_hash, bodyHash: p.body_hash, opcode: p.opcode, direction };
    // opcode forces direction in: with direction=out as well nothing matches.
    if (p.opcode !== undefined && p.direction === 'out') return { transactions: [], address_book: {} };
    return transactionsResponse(ctx, { message }, { limit: p.limit, offset: p.offset, sort: p.sort, order: 'lt' });
  },
});

/**
 * GET /adjacentTransactions: `in` the transaction that sent this one's in message, `out` those that
 * received its out messages, both without direction. Ordered by lt ascending, no pagination.
 */
export const adjacentTransactionsEndpoint = defineEndpoint({
  path: '/adjacentTransactions',
  operationId: 'getAdjacentTransactions',
  summary: 'The parent and child transactions of a transaction',
  tag: 'transactions',
  params: {
    hash: required(kinds.hash, 'Transaction hash.'),
    direction: optional(kinds.direction, 'in: the parent (sender of the in message); out: the children; both when absent.'),
  },
  response: ref(TransactionsResponse),
  notFound: 'adjacent transactions not found',
  async handle(ctx) {
    const { store, scope, params: p } = ctx;
    const [tx] = await readTransactions(store, scope, { hashes: [p.hash] }, { limit: 1, offset: 0, sort: 'asc', order: 'lt' });
    const hashes = tx ? await readAdjacentTransactionHashes(store, scope, tx, p.direction) : [];
    if (hashes.length === 0) throw new HttpError(404, 'adjacent transactions not found');
    return transactionsResponse(ctx, { hashes }, { limit: MAX_LIMIT, offset: 0, sort: 'asc', order: 'lt' });
  },
});
