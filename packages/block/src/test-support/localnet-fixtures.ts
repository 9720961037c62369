import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beginCell, Cell, loadAccount } from '@ton/core';

/** test/fixtures/localnet of this repository (made on the local TON network; see its SOURCES.md). */
export const LOCALNET_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/localnet');

export type AccountStatus = 'active' | 'frozen' | 'uninit' | 'nonexist';

/** One file of account-states/ with what account-states.json says about it. */
export type LocalnetAccountState = {
  /** The status the account was made to have (the tests check it with @ton/core). */
  status: AccountStatus;
  file: string;
  /** Raw address, upper-case hex, as the decoder's records write it. */
  account: string;
  lastTransLt: string;
  /** Base64, as the decoder's records write hashes. */
  lastTransHash: string;
  /** The `state` bytes of the liteserver's answer: an Account BoC, or nothing for a missing account. */
  boc: Buffer;
};

type IndexEntry = { status: AccountStatus; file: string; account: string; last_trans_lt: string; last_trans_hash_hex: string };

export function localnetAccountStates(): LocalnetAccountState[] {
  const index: { states: IndexEntry[] } = JSON.parse(readFileSync(join(LOCALNET_FIXTURES, 'account-states.json'), 'utf8'));
  return index.states.map((s) => ({
    status: s.status,
    file: s.file,
    account: s.account,
    lastTransLt: s.last_trans_lt,
    lastTransHash: Buffer.from(s.last_trans_hash_hex, 'hex').toString('base64'),
    boc: readFileSync(join(LOCALNET_FIXTURES, s.file)),
  }));
}

/** An account state as @ton/core reads it, in the terms (and hash encoding) of `AccountStateRecord`. */
export type CoreAccountState = {
  status: AccountStatus;
  balance: string;
  account_state_hash: string;
  code_hash: string | null;
  data_hash: string | null;
  frozen_hash: string | null;
};

/**
 * The expected record fields of an `Account` BoC, read by @ton/core instead of this package. No bytes
 * is a missing account, whose state is the `account_none$0` cell.
 */
export function coreAccountState(boc: Uint8Array): CoreAccountState {
  const root = boc.length === 0 ? beginCell().storeBit(0).endCell() : Cell.fromBoc(Buffer.from(boc))[0];
  const slice = root.beginParse();
  const none = { status: 'nonexist' as const, balance: '0', account_state_hash: base64(root.hash()), code_hash: null, data_hash: null, frozen_hash: null };
  if (!slice.loadBit()) return none;
  const account = loadAccount(slice);
  const state = account.storage.state;
  const active = state.type === 'active' ? state.state : undefined;
  return {
    ...none,
    status: state.type,
    balance: account.storage.balance.coins.toString(),
    code_hash: active?.code ? base64(active.code.hash()) : null,
    data_hash: active?.data ? base64(active.data.hash()) : null,
    frozen_hash: state.type === 'frozen' ? base64(Buffer.from(state.stateHash.toString(16).padStart(64, '0'), 'hex')) : null,
  };
}

const base64 = (bytes: Buffer) => bytes.toString('base64');
