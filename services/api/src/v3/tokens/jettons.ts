import { readJettonMasters, readJettonWallets, readTokenEvents } from '@tonstream/store';
import { HttpError } from '../../http/http-error.js';
import { defineEndpoint } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, offset, optional, sort } from '../../http/params.js';
import { ref } from '../../http/schema-kit.js';
import { JettonBurnsResponse, JettonMastersResponse, JettonTransfersResponse, JettonWalletsResponse } from './schemas.js';
import { sideObjects } from '../side-objects.js';
import { toJettonBurn, toJettonMaster, toJettonTransfer, toJettonWallet } from './objects.js';
import { ADDRS, transferDirection } from './params.js';

/** The Jettons family (docs/toncenter-v3.md §2.3), read from the token tables the pipeline derives (migration 9). */

export const jettonMastersEndpoint = defineEndpoint({
  path: '/jetton/masters',
  operationId: 'getJettonMasters',
  summary: 'Jetton masters by address or admin',
  tag: 'jettons',
  params: { address: ADDRS('Jetton master addresses'), admin_address: ADDRS('Admin addresses'), limit: limit(), offset: offset() },
  response: ref(JettonMastersResponse),
  async handle(ctx) {
    const p = ctx.params;
    const rows = await readJettonMasters(ctx.store, ctx.scope, { address: p.address, admin: p.admin_address }, { limit: p.limit, offset: p.offset });
    const jetton_masters = rows.map(toJettonMaster);
    return { jetton_masters, ...(await sideObjects(ctx, jetton_masters.flatMap((m) => [m.address, m.admin_address]))) };
  },
});

export const jettonWalletsEndpoint = defineEndpoint({
  path: '/jetton/wallets',
  operationId: 'getJettonWallets',
  summary: 'Jetton wallets by address, owner or jetton; holders by balance with sort',
  tag: 'jettons',
  // A Jetton's holders by balance are the hot page (explorers, analytics): one read per watermark.
  sharedPerWatermark: (p) => p.sort !== undefined && p.jetton_address !== undefined && p.owner_address === undefined && p.address === undefined,
  params: {
    address: ADDRS('Jetton wallet addresses'),
    owner_address: ADDRS('Owner addresses'),
    jetton_address: ADDRS('Jetton master addresses; more than one needs exactly one owner_address'),
    exclude_zero_balance: optional(kinds.bool, 'Leave out wallets with a zero balance.'),
    limit: limit(),
    offset: offset(),
    sort: optional(kinds.sort, 'Order by balance (asc or desc); absent: by address.'),
  },
  response: ref(JettonWalletsResponse),
  async handle(ctx) {
    const p = ctx.params;
    if ((p.jetton_address?.length ?? 0) > 1 && p.owner_address?.length !== 1) throw new HttpError(422, 'exact one owner_address required for multiple jetton_address');
    const rows = await readJettonWallets(ctx.store, ctx.scope, { address: p.address, owner: p.owner_address, jetton: p.jetton_address, excludeZero: p.exclude_zero_balance }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const jetton_wallets = rows.map(toJettonWallet);
    return { jetton_wallets, ...(await sideObjects(ctx, jetton_wallets.flatMap((w) => [w.address, w.owner, w.jetton]))) };
  },
});

const EVENT_PARAMS = {
  jetton_wallet: ADDRS('Jetton wallets'),
  jetton_master: optional(kinds.address, 'Jetton master.'),
  start_utime: optional(kinds.utime, 'Transaction now >= start_utime; orders by now.'),
  end_utime: optional(kinds.utime, 'Transaction now <= end_utime; orders by now.'),
  start_lt: optional(kinds.uint64, 'Transaction lt >= start_lt.'),
  end_lt: optional(kinds.uint64, 'Transaction lt <= end_lt.'),
  limit: limit(),
  offset: offset(),
  sort: sort('desc'),
};

const times = (p: { start_utime?: number; end_utime?: number; start_lt?: bigint; end_lt?: bigint }) => ({ startUtime: p.start_utime, endUtime: p.end_utime, startLt: p.start_lt?.toString(), endLt: p.end_lt?.toString() });

export const jettonTransfersEndpoint = defineEndpoint({
  path: '/jetton/transfers',
  operationId: 'getJettonTransfers',
  summary: 'Jetton transfers (aborted transactions left out)',
  tag: 'jettons',
  params: {
    owner_address: ADDRS('Owners: the sender or the receiver'),
    address: optional(kinds.address, 'Alias of owner_address (one value) when owner_address is absent.'),
    direction: optional(transferDirection, 'With owner_address: in (received), out (sent) or both.'),
    ...EVENT_PARAMS,
  },
  response: ref(JettonTransfersResponse),
  async handle(ctx) {
    const p = ctx.params;
    const owners = p.owner_address ?? (p.address ? [p.address] : undefined);
    const direction = p.direction === 'both' ? undefined : p.direction;
    const rows = await readTokenEvents(ctx.store, ctx.scope, 'jetton_transfers', { owners, direction, tokenAccounts: p.jetton_wallet, token: p.jetton_master, excludeAborted: true, ...times(p) }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const jetton_transfers = rows.map(toJettonTransfer);
    return { jetton_transfers, ...(await sideObjects(ctx, jetton_transfers.flatMap((t) => [t.source, t.destination, t.source_wallet, t.jetton_master, t.response_destination]))) };
  },
});

export const jettonBurnsEndpoint = defineEndpoint({
  path: '/jetton/burns',
  operationId: 'getJettonBurns',
  summary: 'Jetton burns (aborted ones included, as toncenter)',
  tag: 'jettons',
  params: {
    owner_address: ADDRS('Owners of the burnt jettons'),
    address: optional(kinds.address, 'Alias of owner_address (one value) when owner_address is absent.'),
    ...EVENT_PARAMS,
  },
  response: ref(JettonBurnsResponse),
  async handle(ctx) {
    const p = ctx.params;
    const owners = p.owner_address ?? (p.address ? [p.address] : undefined);
    const rows = await readTokenEvents(ctx.store, ctx.scope, 'jetton_burns', { owners, tokenAccounts: p.jetton_wallet, token: p.jetton_master, ...times(p) }, { limit: p.limit, offset: p.offset, sort: p.sort });
    const jetton_burns = rows.map(toJettonBurn);
    return { jetton_burns, ...(await sideObjects(ctx, jetton_burns.flatMap((b) => [b.owner, b.jetton_wallet, b.jetton_master, b.response_destination]))) };
  },
});
