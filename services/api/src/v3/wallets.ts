import { Cell } from '@ton/core';

/**
 * Standard wallets by code hash (base64), named as toncenter names them (toncenter-v3.md §4 "Wallet
 * types"). The hashes are those of the codes @ton/ton deploys; test/unit/api-wallets.test.ts recomputes
 * each from @ton/ton's contracts. Not here: `wallet v4 r1` (@ton/ton has no v4r1 contract to check a
 * hash against) and highload wallets, which toncenter does not parse either (`is_wallet: false`, §2.2).
 */
export const WALLET_TYPES: ReadonlyMap<string, WalletType> = new Map([
  ['oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=', 'wallet v1 r1'],
  ['1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=', 'wallet v1 r2'],
  ['WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=', 'wallet v1 r3'],
  ['XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=', 'wallet v2 r1'],
  ['/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=', 'wallet v2 r2'],
  ['thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=', 'wallet v3 r1'],
  ['hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=', 'wallet v3 r2'],
  ['/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=', 'wallet v4 r2'],
  ['89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=', 'wallet v5 beta'],
  ['IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=', 'wallet v5 r1'],
] as const);

export type WalletType =
  | 'wallet v1 r1' | 'wallet v1 r2' | 'wallet v1 r3' | 'wallet v2 r1' | 'wallet v2 r2'
  | 'wallet v3 r1' | 'wallet v3 r2' | 'wallet v4 r2' | 'wallet v5 beta' | 'wallet v5 r1';

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

/** A code hash's wallet type, or undefined when it is not a standard wallet's. */
export function walletType(codeHash: string | null): WalletType | undefined {
  return codeHash === null ? undefined : WALLET_TYPES.get(codeHash);
}
