import type { Slice } from '@ton/core';
import { message } from '../layout.js';
import { msgAddressInt } from '../tlb/address.js';
import { type Codec, spendCell, type TlbJson } from '../tlb/codec.js';
import { currencyCollection } from '../tlb/currency.js';
import { outListRef } from '../tlb/out-list.js';
import { bigUint, bits, bool, cons, maybe, oneOf, uint } from '../tlb/primitives.js';

/*
 * Wallet requests, as ton-marker's scheme writes them.
 * Wallet v5 r1 (ton-blockchain/wallet-contract-v5):
 *   add_extension#02 addr:MsgAddressInt | delete_extension#03 addr:MsgAddressInt
 *     | set_signature_auth_allowed#04 allowed:Bool = W5ExtendedAction;
 *   extended_list_last$_ action:W5ExtendedAction = W5ExtendedActionList 0;
 *   extended_list_action$_ {m:#} action:W5ExtendedAction prev:^(W5ExtendedActionList m) = W5ExtendedActionList (m + 1);
 *   w5_actions_request$_ out_actions:(Maybe ^(OutList m)) extended_actions:(Maybe (W5ExtendedActionList n)) = W5InnerRequest m n;
 *   w5_signed_request$_ wallet_id:uint32 valid_until:uint32 msg_seqno:uint32 inner:(W5InnerRequest m n) signature:bits512 = W5SignedRequest m n;
 *   w5_internal_signed_request#73696e74 request:(W5SignedRequest m n) = W5MsgBody m n;
 *   w5_external_signed_request#7369676e request:(W5SignedRequest m n) = W5MsgBody m n;
 *   w5_extension_action_request#6578746e query_id:uint64 request:(W5InnerRequest m n) = W5MsgBody m n;
 * Highload wallet v3 (ton-blockchain/highload-wallet-contract-v3), the request it sends itself:
 *   highload_v3_internal_request#ae42e5a4 query_id:uint64 actions:^(OutList n)
 * Wallet v4 plugins (ton-blockchain/wallet-contract v4 and its subscription plugin).
 */

const extendedAction = oneOf(
  cons('add_extension', '#02', { addr: msgAddressInt }),
  cons('delete_extension', '#03', { addr: msgAddressInt }),
  cons('set_signature_auth_allowed', '#04', { allowed: bool }),
);

export type W5ExtendedAction = ReturnType<typeof extendedAction.read>;

/** `W5ExtendedActionList n`: the list starts in the request's own cell; each next one is its only ref. */
const extendedActions: Codec<W5ExtendedAction[]> = {
  read(s) {
    const actions: W5ExtendedAction[] = [];
    let cur: Slice = s;
    while (true) {
      actions.push(extendedAction.read(cur));
      if (cur.remainingRefs === 0) return actions;
      cur = cur.loadRef().beginParse();
    }
  },
  print(s, budget) {
    const printFrom = (cur: Slice): TlbJson => {
      const action = extendedAction.print(cur, budget);
      if (cur.remainingRefs === 0) return { '@type': 'extended_list_last', action };
      spendCell(budget);
      return { '@type': 'extended_list_action', action, prev: printFrom(cur.loadRef().beginParse()) };
    };
    return printFrom(s);
  },
};

const innerRequest = cons('w5_actions_request', '$_', { out_actions: maybe(outListRef), extended_actions: maybe(extendedActions) });

const signedRequest = cons('w5_signed_request', '$_', {
  wallet_id: uint(32),
  valid_until: uint(32),
  msg_seqno: uint(32),
  inner: innerRequest,
  signature: bits(512),
});

export const w5InternalSignedRequest = message('w5_internal_signed_request', 0x73696e74, { request: signedRequest });

export const w5ExternalSignedRequest = message('w5_external_signed_request', 0x7369676e, { request: signedRequest });

export const w5ExtensionActionRequest = message('w5_extension_action_request', 0x6578746e, { query_id: bigUint(64), request: innerRequest });

export const highloadV3InternalRequest = message('highload_v3_internal_request', 0xae42e5a4, { query_id: bigUint(64), actions: outListRef });

export const walletPluginInstallationNotification = message('wallet_plugin_installation_notification', 0x6e6f7465, { query_id: bigUint(64) });

export const walletPluginDestruct = message('wallet_plugin_destruct', 0x64737472, { query_id: bigUint(64) });

export const walletPluginDestructResponse = message('wallet_plugin_destruct_response', 0xe4737472, { query_id: bigUint(64) });

export const paymentRequest = message('payment_request', 0x706c7567, { query_id: bigUint(64), amount: currencyCollection });

export const paymentConfirmed = message('payment_confirmed', 0xf06c7567, { query_id: bigUint(64) });

export const WALLET_MESSAGES = [
  w5InternalSignedRequest,
  w5ExternalSignedRequest,
  w5ExtensionActionRequest,
  highloadV3InternalRequest,
  walletPluginInstallationNotification,
  walletPluginDestruct,
  walletPluginDestructResponse,
  paymentRequest,
  paymentConfirmed,
] as const;

