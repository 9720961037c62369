import { message } from '../layout.js';
import { anon, anyCell, bigUint, snakeText } from '../tlb/primitives.js';

/*
 * Bodies any contract may get: comments (the wallet convention TEP-74 forward payloads also use),
 * the bounce prefix (TVM), and TEP-74 / TEP-62 `excesses`.
 */

export const textComment = message('text_comment', 0x00000000, { text: snakeText });

/** `_ _:Cell = Bytes`: the ciphertext stays a cell (printed under an empty field name). */
export const encryptedTextComment = message('encrypted_text_comment', 0x2167da4b, { cipher_text: anon({ '': anyCell }) });

/** A bounced message: 0xffffffff, then (up to) the first 256 bits of the original body. */
export const bounce = message('bounce', 0xffffffff, { payload: anyCell });

export const excess = message('excess', 0xd53276db, { query_id: bigUint(64) });

export const COMMON_MESSAGES = [textComment, encryptedTextComment, bounce, excess] as const;
