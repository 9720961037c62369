import { factsOf, servedInterfaces } from '@tonstream/contracts';
import type { AccountStateRecord } from '@tonstream/records';
import { buildTokenMetadata, readAccountStates, readTopBalances } from '@tonstream/store';
import { type AddressBookRow, buildAddressBook } from '../address-book.js';
import { defineEndpoint, type EndpointContext } from '../endpoint.js';
import * as kinds from '../../http/kinds.js';
import { limit, list, offset, type Params, requiredList, withDefault } from '../../http/params.js';
import { arr, ref } from '../../http/schema-kit.js';
import { AddressBook, Metadata } from '../schemas.js';
import { AccountBalance, AccountStatesResponse, WalletStatesResponse } from './schemas.js';
import { sideObjects } from '../side-objects.js';

/**
 * The accounts family (docs/toncenter-v3.md §2.2): /accountStates, /walletStates, /addressBook,
 * /topAccountsByBalance. States are the indexed ones: the latest stored state at or below the
 * watermark (store `readAccountStates`); an account with none is absent, as toncenter leaves out
 * unknown addresses.
 */

const omitNull = <T>(key: string, v: T | null) => (v === null ? {} : { [key]: v });

/**
 * Get-method ids and interfaces of an account's code (its contract facts), as toncenter serves
 * them: no ids is null (toncenter keeps none for such a code), interfaces by `servedInterfaces`.
 */
function codeInterfaces(s: AccountStateRecord): { contract_methods: number[] | null; interfaces: string[] | null } {
  const found = factsOf(s);
  return { contract_methods: found.methods?.length ? found.methods : null, interfaces: servedInterfaces(found) };
}

/** `AccountStateFull` (§3): null hashes and BoCs omitted; BoCs also without `include_boc`. */
export function toAccountStateFull(s: AccountStateRecord, includeBoc: boolean) {
  return {
    address: s.account,
    account_state_hash: s.account_state_hash,
    balance: s.balance,
    extra_currencies: s.extra_currencies,
    status: s.status,
    ...omitNull('frozen_hash', s.frozen_hash),
    last_transaction_hash: s.last_trans_hash,
    last_transaction_lt: s.last_trans_lt,
    ...omitNull('data_hash', s.data_hash),
    ...omitNull('code_hash', s.code_hash),
    ...(includeBoc ? { ...omitNull('data_boc', s.data_boc), ...omitNull('code_boc', s.code_boc) } : {}),
    ...codeInterfaces(s),
  };
}

/** `WalletState` (§3): type, seqno, wallet_id and (v5 r1) is_signature_allowed for standard wallets; what toncenter omits when empty, omitted. */
export function toWalletState(s: AccountStateRecord) {
  const data = factsOf(s).wallet;
  const type = data?.type;
  return {
    address: s.account,
    is_wallet: type !== undefined,
    ...(type ? { wallet_type: type } : {}),
    ...(data?.seqno !== undefined ? { seqno: data?.seqno } : {}),
    ...(data?.wallet_id !== undefined ? { wallet_id: data?.wallet_id } : {}),
    balance: s.balance,
    // toncenter's WalletState has it `omitempty` (AccountStateFull does not): no currencies, no field.
    ...(Object.keys(s.extra_currencies).length > 0 ? { extra_currencies: s.extra_currencies } : {}),
    ...(data?.is_signature_allowed !== undefined ? { is_signature_allowed: data?.is_signature_allowed } : {}),
    status: s.status,
    ...omitNull('code_hash', s.code_hash),
    last_transaction_hash: s.last_trans_hash,
    last_transaction_lt: s.last_trans_lt,
  };
}

/** The indexed states of the requested accounts, in request order (each once), unknown ones left out. */
async function statesOf<P extends Params>(ctx: EndpointContext<P>, addresses: string[]): Promise<AccountStateRecord[]> {
  const distinct = [...new Set(addresses)];
  const states = await readAccountStates(ctx.store, ctx.scope, distinct);
  return distinct.flatMap((a) => states.get(a) ?? []);
}

const ADDRESSES = 'Account addresses (repeat the key), at most 1000.';

/** GET /accountStates: §2.2. `code_hash` (undocumented by toncenter) keeps the states with one of those code hashes. */
export const accountStatesEndpoint = defineEndpoint({
  path: '/accountStates',
  operationId: 'getAccountStates',
  summary: 'Account states (the latest indexed state of each account)',
  description: 'The latest state of each account at or below the watermark; unknown accounts are absent.',
  tag: 'accounts',
  params: {
    address: requiredList(kinds.address, ADDRESSES, 'address of account is required'),
    include_boc: withDefault(kinds.bool, true, 'Include code_boc and data_boc; default true.'),
    code_hash: list(kinds.hash, 'Only accounts with one of these code hashes.'),
  },
  response: ref(AccountStatesResponse),
  async handle(ctx) {
    const p = ctx.params;
    let states = await statesOf(ctx, p.address);
    if (p.code_hash) {
      const wanted = new Set(p.code_hash);
      states = states.filter((s) => s.code_hash !== null && wanted.has(s.code_hash));
    }
    return { accounts: states.map((s) => toAccountStateFull(s, p.include_boc)), ...(await sideObjects(ctx, states.map((s) => s.account))) };
  },
});

/** GET /walletStates: §2.2. */
export const walletStatesEndpoint = defineEndpoint({
  path: '/walletStates',
  operationId: 'getWalletStates',
  summary: 'Wallet states: type, seqno and wallet id of standard wallets',
  description: 'Detected by code hash (wallet v1 r1 .. v5 r1); other accounts have is_wallet false. Unknown accounts are absent.',
  tag: 'accounts',
  params: { address: requiredList(kinds.address, ADDRESSES, 'address of account is required') },
  response: ref(WalletStatesResponse),
  async handle(ctx) {
    const states = await statesOf(ctx, ctx.params.address);
    return { wallets: states.map(toWalletState), ...(await sideObjects(ctx, states.map((s) => s.account))) };
  },
});

/** GET /addressBook: §2.2. Keyed by the strings sent; one that is not an address gets `user_friendly: null`. */
export const addressBookEndpoint = defineEndpoint({
  path: '/addressBook',
  operationId: 'getAddressBook',
  summary: 'User-friendly forms of addresses',
  description: 'A map keyed by the exact strings sent.',
  tag: 'accounts',
  params: { address: requiredList(kinds.text, 'Addresses in any form (repeat the key), at most 1024.', 'at least 1 address required', 1024) },
  response: ref(AddressBook),
  async handle(ctx) {
    const inputs = ctx.params.address;
    const raws = new Map(inputs.map((text) => [text, kinds.address.parse(text)]));
    const valid = [...new Set([...raws.values()].filter((r): r is string => r !== undefined))];
    const byRaw = await buildAddressBook(ctx.store, ctx.scope, valid, ctx.testnet);
    const book: Record<string, AddressBookRow> = {};
    for (const [text, raw] of raws) book[text] = raw === undefined ? { user_friendly: null, domain: null, interfaces: [] } : byRaw[raw];
    return book;
  },
});

/** GET /topAccountsByBalance: §2.2, a bare array. Ties by account ascending. */
export const topAccountsByBalanceEndpoint = defineEndpoint({
  path: '/topAccountsByBalance',
  operationId: 'getTopAccountsByBalance',
  sharedPerWatermark: true,
  summary: 'Accounts by balance, highest first',
  description: 'Each account at its latest indexed state; ties by account. Read from ClickHouse (account_states_latest FINAL).',
  tag: 'accounts',
  params: { limit: limit(), offset: offset() },
  response: arr(ref(AccountBalance)),
  async handle(ctx) {
    return readTopBalances(ctx.store, ctx.scope, { limit: ctx.params.limit, offset: ctx.params.offset });
  },
});

/**
 * GET /metadata: §2.2, a map keyed by raw address holding only token contracts (Jetton masters and
 * wallets, NFT collections and items; a wallet pulls in its master). Off-chain content not fetched
 * yet by the metadata worker is `is_indexed: false` (token-metadata.ts).
 */
export const metadataEndpoint = defineEndpoint({
  path: '/metadata',
  operationId: 'getMetadata',
  summary: 'Token metadata of addresses',
  description: 'A map keyed by raw address; only token contracts appear (a Jetton wallet brings its master). Off-chain metadata the metadata worker has not fetched yet is `is_indexed: false`.',
  tag: 'accounts',
  params: { address: requiredList(kinds.address, 'Addresses (repeat the key), at most 1024.', 'at least 1 address required', 1024) },
  response: ref(Metadata),
  async handle(ctx) {
    return buildTokenMetadata(ctx.store, ctx.scope, ctx.params.address);
  },
});
