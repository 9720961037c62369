import { arr, B, component, more, N, nullable, obj, oneOf, ref, S } from '../../http/schema-kit.js';
import { AddressBook, amounts, Metadata } from '../schemas.js';

/** Response schemas of the account and wallet endpoints (docs/toncenter-v3.md §3 AccountStateFull, WalletState). */

export const AccountStateFull = component('AccountStateFull', obj({
  address: S, account_state_hash: S, balance: S, extra_currencies: amounts, status: oneOf(['uninit', 'frozen', 'active', 'nonexist']),
  frozen_hash: S, last_transaction_hash: S, last_transaction_lt: S, data_hash: S, code_hash: S,
  data_boc: more(S, { description: 'BoC, base64; absent with include_boc=false' }), code_boc: more(S, { description: 'BoC, base64; absent with include_boc=false' }),
  contract_methods: nullable(arr(N, { description: 'get-method ids as the code\'s method dictionary keys them: 19-bit unsigned (recv_external is 524287), ascending' })),
  interfaces: nullable(arr(S, { description: '[] when the code has no get-methods to match; null when they name no interface' })),
}, ['frozen_hash', 'data_hash', 'code_hash', 'data_boc', 'code_boc']));
export const AccountStatesResponse = component('AccountStatesResponse', obj({ accounts: arr(ref(AccountStateFull)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
export const WalletState = component('WalletState', obj({
  address: S, is_wallet: B, wallet_type: more(S, { example: 'wallet v4 r2' }), seqno: N, wallet_id: N, balance: S, extra_currencies: amounts,
  is_signature_allowed: more(B, { description: 'wallet v5 r1 only' }), status: S, code_hash: S, last_transaction_hash: nullable(S), last_transaction_lt: nullable(S),
}, ['wallet_type', 'seqno', 'wallet_id', 'extra_currencies', 'is_signature_allowed', 'code_hash']));
export const WalletStatesResponse = component('WalletStatesResponse', obj({ wallets: arr(ref(WalletState)), address_book: ref(AddressBook), metadata: ref(Metadata) }));
export const AccountBalance = component('AccountBalance', obj({ account: S, balance: S }));
