import { type LiteAccountState, balanceOf, b64, extraCurrencies, readLiteAccountState, stateParts, tonlibState } from '../chain/account-state.js';
import { beginCell, Cell } from '@ton/core';
import { friendlyAddress } from '../chain/address.js';
import { optional, required } from '../http/params.js';
import { liveFacts, walletInformation } from '../chain/wallets.js';
import { blockIdExt } from '../chain/block-ids.js';
import * as kinds from './kinds.js';
import { defineMethod, type V2Context } from './method.js';

/** Account methods (docs/toncenter-v2.md §2.1): the account's state from the liteserver at the newest or a given masterchain block. */

const accountParams = {
  address: required(kinds.address, 'Account address, raw or user-friendly.'),
  seqno: optional(kinds.seqno, 'Masterchain seqno to read the state at; default the newest.'),
};
type AccountParams = typeof accountParams;

const stateOf = (ctx: V2Context<AccountParams>) => readLiteAccountState(ctx.lite, ctx.params.address, ctx.params.seqno);

export const transactionId = (lt: bigint, hash: Uint8Array) => ({ '@type': 'internal.transactionId', lt: lt.toString(), hash: b64(hash) });

/** `raw.fullAccountState` (C++ shape, without the mainnet-only `suspended` list). */
export function rawFullAccountState(s: LiteAccountState) {
  const parts = stateParts(s.account);
  return {
    '@type': 'raw.fullAccountState',
    balance: balanceOf(s.account).toString(),
    extra_currencies: extraCurrencies(s.account),
    code: parts.code,
    data: parts.data,
    last_transaction_id: transactionId(s.lastTx.lt, s.lastTx.hash),
    block_id: blockIdExt(s.mc),
    frozen_hash: parts.frozenHash,
    sync_utime: s.syncUtime,
    state: tonlibState(s.account),
  };
}

export const getAddressInformation = defineMethod({
  name: 'getAddressInformation',
  summary: 'Balance, code, data and last transaction of an account',
  source: 'liteserver',
  params: accountParams,
  handle: async (ctx) => rawFullAccountState(await stateOf(ctx)),
});

export const getAddressBalance = defineMethod({
  name: 'getAddressBalance',
  summary: 'Balance of an account in nanotons (a string)',
  source: 'liteserver',
  params: accountParams,
  handle: async (ctx) => balanceOf((await stateOf(ctx)).account).toString(),
});

export const getAddressState = defineMethod({
  name: 'getAddressState',
  summary: 'uninitialized, active or frozen',
  source: 'liteserver',
  params: accountParams,
  handle: async (ctx) => tonlibState((await stateOf(ctx)).account),
});

/** tonlib's wallet account states by wallet type; other contracts are raw.accountState. */
const TONLIB_WALLETS: Record<string, { type: string; revision: number }> = {
  'wallet v3 r1': { type: 'wallet.v3.accountState', revision: 1 },
  'wallet v3 r2': { type: 'wallet.v3.accountState', revision: 2 },
  'wallet v4 r2': { type: 'wallet.v4.accountState', revision: 2 },
};

export const getExtendedAddressInformation = defineMethod({
  name: 'getExtendedAddressInformation',
  summary: 'Account state with the wallet fields tonlib recognises',
  source: 'liteserver',
  params: accountParams,
  async handle(ctx) {
    const s = await stateOf(ctx);
    const parts = stateParts(s.account);
    const wallet = liveFacts(s).wallet;
    const known = wallet ? TONLIB_WALLETS[wallet.type] : undefined;
    let accountState: Record<string, unknown>;
    if (known && wallet) {
      accountState = { '@type': known.type, wallet_id: String(wallet.wallet_id ?? 0), seqno: wallet.seqno ?? 0 };
    } else if (tonlibState(s.account) === 'uninitialized') {
      accountState = { '@type': 'uninited.accountState', frozen_hash: parts.frozenHash };
    } else {
      accountState = { '@type': 'raw.accountState', code: parts.code, data: parts.data, frozen_hash: parts.frozenHash };
    }
    return {
      '@type': 'fullAccountState',
      address: { '@type': 'accountAddress', account_address: friendlyAddress(ctx.params.address, { bounceable: true, testOnly: ctx.testnet }) },
      balance: balanceOf(s.account).toString(),
      extra_currencies: extraCurrencies(s.account),
      last_transaction_id: transactionId(s.lastTx.lt, s.lastTx.hash),
      block_id: blockIdExt(s.mc),
      sync_utime: s.syncUtime,
      account_state: accountState,
      revision: known?.revision ?? 0,
    };
  },
});

export const getWalletInformation = defineMethod({
  name: 'getWalletInformation',
  summary: 'Wallet type, seqno and wallet id of a standard wallet',
  source: 'liteserver',
  params: accountParams,
  async handle(ctx) {
    const s = await stateOf(ctx);
    const { type, data } = walletInformation(s);
    return {
      '@type': 'ext.accounts.walletInformation',
      wallet: type !== undefined,
      balance: balanceOf(s.account).toString(),
      account_state: tonlibState(s.account),
      last_transaction_id: transactionId(s.lastTx.lt, s.lastTx.hash),
      ...(type ? { wallet_type: type } : {}),
      ...(data.seqno !== undefined ? { seqno: data.seqno } : {}),
      ...(data.wallet_id !== undefined ? { wallet_id: data.wallet_id } : {}),
      ...(data.is_signature_allowed !== undefined ? { is_signature_allowed: data.is_signature_allowed } : {}),
    };
  },
});

export const getShardAccountCell = defineMethod({
  name: 'getShardAccountCell',
  summary: 'The ShardAccount cell: the Account and its last transaction id',
  source: 'liteserver',
  params: accountParams,
  async handle(ctx) {
    const s = await stateOf(ctx);
    // shard_account$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64
    const account = s.boc.length > 0 ? Cell.fromBoc(s.boc)[0] : beginCell().storeBit(0).endCell();
    const cell = beginCell().storeRef(account).storeBuffer(s.lastTx.hash, 32).storeUint(s.lastTx.lt, 64).endCell();
    return { '@type': 'tvm.cell', bytes: b64(cell.toBoc()) };
  },
});
