/**
 * An account's state as the liteserver gives it, read once for every v2 account method and the v3
 * legacy endpoints: the Account (with @ton/core), its last transaction (from the state proof, where
 * a liteserver keeps it: the ShardAccount) and the masterchain block it was taken at.
 */
import { type Account, Cell, loadAccount } from '@ton/core';
import { lastTransactionOf } from '@tonstream/lite-client';
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { type AccountRef, type Liteserver, LiteClientError } from './liteserver.js';
import { readHeaderProof } from './block-header.js';

export type LiteAccountState = {
  mc: tonNode_blockIdExt;
  /** gen_utime of `mc`. */
  syncUtime: number;
  /** null: the account does not exist. */
  account: Account | null;
  lastTx: { lt: bigint; hash: Buffer };
  /** The Account BoC as sent (empty for a nonexistent account). */
  boc: Buffer;
};

export type TonlibState = 'uninitialized' | 'active' | 'frozen';

const ZERO_HASH = Buffer.alloc(32);

/** The state of `address` after masterchain block `seqno` (the newest when undefined). */
export async function readLiteAccountState(lite: Liteserver, address: AccountRef, seqno?: number): Promise<LiteAccountState> {
  let mc: tonNode_blockIdExt;
  let syncUtime: number;
  if (seqno === undefined) {
    const info = await lite.masterchainInfo();
    mc = info.last;
    syncUtime = info.lastUtime;
  } else {
    const header = await lite.lookupBlock(-1, 1n << 63n, { seqno });
    mc = header.id;
    syncUtime = readHeaderProof(header.headerProof).info.genUtime;
  }
  const res = await lite.accountState(mc, address);
  if (res.state.length === 0) return { mc, syncUtime, account: null, lastTx: { lt: 0n, hash: ZERO_HASH }, boc: Buffer.alloc(0) };
  try {
    const slice = Cell.fromBoc(res.state)[0].beginParse();
    if (!slice.loadBit()) return { mc, syncUtime, account: null, lastTx: { lt: 0n, hash: ZERO_HASH }, boc: Buffer.alloc(0) };
    const account = loadAccount(slice);
    return { mc, syncUtime, account, lastTx: lastTransaction(res.proof, address) ?? { lt: account.storage.lastTransLt, hash: ZERO_HASH }, boc: Buffer.from(res.state) };
  } catch (err) {
    throw new LiteClientError(502, `liteserver sent an unreadable account state: ${(err as Error).message}`, { cause: err });
  }
}

/** The ShardAccount's last transaction, from the state proof (see lastTransactionOf). */
export function lastTransaction(proof: Uint8Array, address: AccountRef): { lt: bigint; hash: Buffer } | undefined {
  return lastTransactionOf(proof, address.hash);
}

/** tonlib's account state: no code and no frozen hash is uninitialized. */
export function tonlibState(account: Account | null): TonlibState {
  const t = account?.storage.state.type;
  return t === 'active' ? 'active' : t === 'frozen' ? 'frozen' : 'uninitialized';
}

export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** Code, data and frozen hash as base64 ("" when absent). */
export function stateParts(account: Account | null): { code: string; data: string; frozenHash: string } {
  const s = account?.storage.state;
  if (s?.type === 'active') return { code: s.state.code ? b64(s.state.code.toBoc()) : '', data: s.state.data ? b64(s.state.data.toBoc()) : '', frozenHash: '' };
  if (s?.type === 'frozen') return { code: '', data: '', frozenHash: b64(Buffer.from(s.stateHash.toString(16).padStart(64, '0'), 'hex')) };
  return { code: '', data: '', frozenHash: '' };
}

export function balanceOf(account: Account | null): bigint {
  const coins = account?.storage.balance.coins ?? 0n;
  return coins < 0n ? 0n : coins;
}

export function extraCurrencies(account: Account | null): { '@type': 'extraCurrency'; id: number; amount: string }[] {
  const other = account?.storage.balance.other;
  if (!other) return [];
  return [...other].map(([id, amount]) => ({ '@type': 'extraCurrency' as const, id, amount: amount.toString() }));
}

/** Code hash (base64) of an active account, for wallet detection. */
export function codeHash(account: Account | null): string | null {
  const s = account?.storage.state;
  return s?.type === 'active' && s.state.code ? s.state.code.hash().toString('base64') : null;
}
