import { message } from '../layout.js';
import { msgAddress } from '../tlb/address.js';
import { coins } from '../tlb/currency.js';
import { bigUint, bits } from '../tlb/primitives.js';

/*
 * tgBTC (the TON Teleport BTC bridge): the teleport's and coordinator's external-out event logs
 * and the messages between its contracts (toncenter/ton-indexer indexer/events/blocks/messages/tgbtc.py).
 * Not in MESSAGE_LAYOUTS.
 */

export const TGBTC_OPS = {
  /** Head of a mint chain: a user's mint request to the teleport. */
  mintRequest: 0x3f781d24,
  /** Tail of a mint chain: the teleport, back from the check, mints. */
  mintTail: 0xe42a879b,
  burnAlt: 0x587643a2,
  newKey: 0x690f357a,
  deployPegout: 0xbe44e7a6,
  pegoutInit: 0x1a84c0e0,
} as const;

export const tgbtcMintEvent = message('tgbtc_mint_event', 0x77a80ef3, { amount: coins, recipient_address: msgAddress, bitcoin_txid: bits(256) });
export const tgbtcBurnEvent = message('tgbtc_burn_event', 0xca444ce6, { amount: coins, sender_address: msgAddress, pegout_address: msgAddress });
export const tgbtcNewKeyEvent = message('tgbtc_new_key_event', 0x27756729, { amount: coins, new_internal_pubkey: bits(256), pegout_address: msgAddress });
export const tgbtcDkgCompletedEvent = message('tgbtc_dkg_completed_event', 0x453443a6, { timestamp: bigUint(64), internal_pubkey: bits(256) });
