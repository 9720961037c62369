import { readMultisigOrders, readMultisigWallets } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { buildAddressBook } from '../address-book.js';
import { type MultisigOrderObject, toMultisig, toMultisigOrder } from './objects.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, sort, withDefault } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { MultisigOrdersResponse, MultisigWalletsResponse } from './schemas.js';

/**
 * The multisig family (docs/toncenter-v3.md §2.6): multisig v2 wallets and orders from migration 13's tables.
 * Only v2, as toncenter: its `Multisig` lists signers and proposers as addresses with order contracts,
 * and its interfaces are `multisig_v2` / `multisig_order_v2`; a v1 wallet (owners are public keys,
 * orders kept in its own data) has none of these fields.
 */

const ADDRS = (what: string) => list(kinds.address, `${what} (repeat the key).`);

export const multisigWalletsEndpoint = defineEndpoint({
  path: '/multisig/wallets',
  operationId: 'getMultisigWallets',
  summary: 'Multisig wallets by address or by signer / proposer',
  description: 'At least one of address or wallet_address. Ordered by address (toncenter: by internal id). Multisig v2 wallets only, as toncenter serves: v1 wallets (owners are public keys, no order contracts) are not listed.',
  tag: 'multisig',
  params: {
    address: ADDRS('Multisig wallet addresses'),
    wallet_address: ADDRS('Signers or proposers'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
    include_orders: withDefault(kinds.bool, true, 'Embed each wallet\'s orders; default true.'),
  },
  response: ref(MultisigWalletsResponse),
  async handle(ctx) {
    const p = ctx.params;
    if (!p.address && !p.wallet_address) throw new HttpError(422, 'at least one of address or wallet_address is required');
    const rows = await readMultisigWallets(ctx.store, ctx.scope, { address: p.address, party: p.wallet_address }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const orders = new Map<string, MultisigOrderObject[]>();
    if (p.include_orders && rows.length > 0) {
      const found = await readMultisigOrders(ctx.store, ctx.scope, { multisig: rows.map((r) => String(r.address)) }, { limit: 100_000, offset: 0, sort: 'asc' });
      for (const o of found.map((r) => toMultisigOrder(r, false))) orders.set(o.multisig_address, [...(orders.get(o.multisig_address) ?? []), o]);
    }
    const multisigs = rows.map((r) => toMultisig(r, p.include_orders ? (orders.get(String(r.address)) ?? null) : null));
    const addresses = multisigs.flatMap((m) => [m.address, ...m.signers, ...m.proposers, ...(m.orders ?? []).map((o) => o.address)]);
    const address_book = ctx.settings.noAddressBook ? {} : await buildAddressBook(ctx.store, ctx.scope, addresses, ctx.testnet);
    return { multisigs, address_book };
  },
});

export const multisigOrdersEndpoint = defineEndpoint({
  path: '/multisig/orders',
  operationId: 'getMultisigOrders',
  summary: 'Multisig orders by address or by their multisig wallet',
  description: 'At least one of address or multisig_address. Ordered by multisig, then order seqno.',
  tag: 'multisig',
  params: {
    address: ADDRS('Order addresses'),
    multisig_address: ADDRS('Multisig wallet addresses'),
    parse_actions: withDefault(kinds.bool, false, 'Fill `actions` by reading order_boc; default false.'),
    limit: limit(),
    offset: offset(),
    sort: sort('desc'),
  },
  response: ref(MultisigOrdersResponse),
  async handle(ctx) {
    const p = ctx.params;
    if (!p.address && !p.multisig_address) throw new HttpError(422, 'at least one of address or multisig_address is required');
    const rows = await readMultisigOrders(ctx.store, ctx.scope, { address: p.address, multisig: p.multisig_address }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const orders = rows.map((r) => toMultisigOrder(r, p.parse_actions));
    const address_book = ctx.settings.noAddressBook ? {} : await buildAddressBook(ctx.store, ctx.scope, orders.flatMap((o) => [o.address, o.multisig_address, ...o.signers]), ctx.testnet);
    return { orders, address_book };
  },
});
