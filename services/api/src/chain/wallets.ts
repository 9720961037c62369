import { Cell } from '@ton/core';
import { type WalletType, walletType } from '@tonstream/contracts';
import { codeHash, type LiteAccountState, stateParts, tonlibState } from './account-state.js';

// The table lives in @tonstream/contracts (interface detection names wallets from it too).
export { WALLET_TYPES, walletType, type WalletType } from '@tonstream/contracts';

/** What a wallet's data cell says; a field is absent when the layout does not have it or it cannot be read. */
export type WalletData = { seqno?: number; wallet_id?: number; is_signature_allowed?: boolean };

/**
 * Reads the data cell (BoC, base64) of a wallet of type `type`. Layouts (the contracts' c4):
 * - v1 r1..r3, v2 r1..r2: `seqno:uint32 public_key:bits256`;
 * - v3 r1..r2: `seqno:uint32 wallet_id:uint32 public_key:bits256`; v4 r2 the same then `plugins:(HashmapE …)`;
 * - v5 r1: `is_signature_allowed:uint1 seqno:uint32 wallet_id:uint32 public_key:bits256 extensions:(HashmapE …)`;
 * - v5 beta: a 33-bit seqno field and an 80-bit wallet id whose meaning differs between the beta's
 *   revisions: only its type is answered.
 * A data cell too short for its layout (or not a BoC) gives `{}`: the type still comes from the code.
 */
export function parseWalletData(type: WalletType, dataBoc: string | null): WalletData {
  if (dataBoc === null || type === 'wallet v5 beta') return {};
  let s;
  try {
    s = Cell.fromBase64(dataBoc).beginParse();
  } catch {
    return {};
  }
  const need = type === 'wallet v5 r1' ? 65 : type.startsWith('wallet v3') || type.startsWith('wallet v4') ? 64 : 32;
  if (s.remainingBits < need) return {};
  if (type === 'wallet v5 r1') {
    const is_signature_allowed = s.loadBit();
    return { seqno: s.loadUint(32), wallet_id: s.loadUint(32), is_signature_allowed };
  }
  const seqno = s.loadUint(32);
  return need === 64 ? { seqno, wallet_id: s.loadUint(32) } : { seqno };
}

/** `ext.accounts.walletInformation` fields of a state (v2 getWalletInformation, v3 /walletInformation with use_v2). */
export function walletInformation(s: LiteAccountState) {
  const type = tonlibState(s.account) === 'active' ? walletType(codeHash(s.account)) : undefined;
  const data = type ? parseWalletData(type, stateParts(s.account).data || null) : {};
  return { type, data };
}
