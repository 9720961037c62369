import { message } from '../layout.js';
import { messageRelaxed } from '../tlb/message.js';
import { anyCell, bigUint, ref, uint } from '../tlb/primitives.js';

/* Vesting wallet (ton-blockchain/vesting-contract). */

export const vestingSendMessage = message('vesting_send_message', 0xa7733acd, { query_id: bigUint(64), send_mode: uint(8), message: ref(messageRelaxed) });

export const vestingSendMessageResponse = message('vesting_send_message_response', 0xf7733acd, { query_id: bigUint(64) });

/** The addresses (one inline, the rest in a ref chain) stay a cell, as in the scheme (`Any`). */
export const vestingAddWhiteList = message('vesting_add_white_list', 0x7258a69b, { query_id: bigUint(64), addresses_ref_snake: anyCell });

export const vestingAddWhiteListResponse = message('vesting_add_white_list_response', 0xf258a69b, { query_id: bigUint(64) });

export const VESTING_MESSAGES = [vestingSendMessage, vestingSendMessageResponse, vestingAddWhiteList, vestingAddWhiteListResponse] as const;
