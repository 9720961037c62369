import type { Cell } from '@ton/core';
import { type WalletType, walletType } from '../interfaces/wallet-codes.js';
import type { Standard } from './standard.js';

/** A standard wallet: its type (from the code hash) and what its data says; a field is absent when the layout does not have it or it cannot be read. */
export type WalletFacts = { type: WalletType; seqno?: number; wallet_id?: number; is_signature_allowed?: boolean };

/**
 * The data of a wallet of type `type`. Layouts (the contracts' c4):
 * - v1 r1..r3, v2 r1..r2: `seqno:uint32 public_key:bits256`;
 * - v3 r1..r2: `seqno:uint32 wallet_id:uint32 public_key:bits256`; v4 r2 the same then `plugins:(HashmapE …)`;
 * - v5 r1: `is_signature_allowed:uint1 seqno:uint32 wallet_id:uint32 public_key:bits256 extensions:(HashmapE …)`;
 * - v5 beta: a 33-bit seqno field and an 80-bit wallet id whose meaning differs between the beta's
 *   revisions: only its type is answered.
 * No data cell, or one too short for its layout, gives the type alone.
 */
function readWallet(type: WalletType, data: Cell | null): WalletFacts {
  if (data === null || type === 'wallet v5 beta') return { type };
  const s = data.beginParse();
  const need = type === 'wallet v5 r1' ? 65 : type.startsWith('wallet v3') || type.startsWith('wallet v4') ? 64 : 32;
  if (s.remainingBits < need) return { type };
  if (type === 'wallet v5 r1') {
    const is_signature_allowed = s.loadBit();
    return { type, seqno: s.loadUint(32), wallet_id: s.loadUint(32), is_signature_allowed };
  }
  const seqno = s.loadUint(32);
  return need === 64 ? { type, seqno, wallet_id: s.loadUint(32) } : { type, seqno };
}

/** A wallet whose code toncenter knows by hash (wallet-codes.ts). */
export const wallet: Standard<WalletFacts> = {
  has: (code) => walletType(code.code_hash) !== undefined,
  read: (data, code) => readWallet(walletType(code.code_hash) as WalletType, data),
};
