import { type Cell, Dictionary, type Slice } from '@ton/core';
import { countedValue } from '../tlb/dict.js';
import { readExactly } from './contract-layout.js';

/**
 * Multisig v1 (ton-blockchain `multisig-code.fc`, @ton/ton MultisigWallet): `wallet_id:uint32 n:uint8
 * k:uint8 last_cleaned:uint64 owner_infos:(HashmapE 8 [public_key:uint256 flood:uint8])
 * pending_queries:(HashmapE 64 ...)`. Owners are public keys (hex), not addresses, which is why
 * toncenter's Multisig object (signers as addresses) does not describe it; get_n_k answers (n, k).
 */
export type MultisigV1Data = { wallet_id: number; n: number; k: number; public_keys: string[]; pending_queries: number };

const ownerValue = { serialize: () => undefined, parse: (s: Slice) => { const key = s.loadBuffer(32).toString('hex'); s.loadUint(8); return key; } };
const anyValue = { serialize: () => undefined, parse: (_: Slice) => null };

export function readMultisigV1Data(data: Cell): MultisigV1Data | null {
  return readExactly(data, (s) => {
    const wallet_id = s.loadUint(32);
    const n = s.loadUint(8);
    const k = s.loadUint(8);
    s.loadUintBig(64);
    const ownersCell = s.loadMaybeRef();
    const owners = ownersCell ? (Dictionary.loadDirect(Dictionary.Keys.Uint(8), ownerValue as never, ownersCell) as Dictionary<number, string>) : null;
    const pendingCell = s.loadMaybeRef();
    const pending = pendingCell ? Dictionary.loadDirect(Dictionary.Keys.BigUint(64), countedValue(anyValue) as never, pendingCell) : null;
    return { wallet_id, n, k, public_keys: owners ? owners.keys().sort((a, b) => a - b).map((i) => owners.get(i)!) : [], pending_queries: pending ? pending.size : 0 };
  });
}
