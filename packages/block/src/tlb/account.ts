import { Slice } from '../boc/slice.js';
import { type CurrencyCollection, loadCurrencyCollection, loadMaybe, loadMsgAddress, type MsgAddress } from './common.js';
import { loadStateInit, type StateInit } from './message.js';

/**
 * account_none$0 = Account;
 * account$1 addr:MsgAddressInt storage_stat:StorageInfo storage:AccountStorage = Account;
 * storage_info$_ used:StorageUsed storage_extra:StorageExtraInfo last_paid:uint32 due_payment:(Maybe Grams) = StorageInfo;
 * storage_used$_ cells:(VarUInteger 7) bits:(VarUInteger 7) = StorageUsed;
 * storage_extra_none$000 / storage_extra_info$001 dict_hash:uint256  (the old public_cells:(VarUInteger 7), always 0, reads as $000)
 * account_storage$_ last_trans_lt:uint64 balance:CurrencyCollection state:AccountState = AccountStorage;
 * account_uninit$00  account_active$1 _:StateInit  account_frozen$01 state_hash:bits256
 */
export type Account =
  | { type: 'none' }
  | {
      type: 'account';
      addr: MsgAddress;
      storageUsed: { cells: bigint; bits: bigint };
      storageExtraDictHash?: string;
      lastPaid: number;
      duePayment?: bigint;
      lastTransLt: bigint;
      balance: CurrencyCollection;
      state: { type: 'uninit' } | { type: 'frozen'; stateHash: string } | ({ type: 'active' } & StateInit);
    };

export function loadAccount(s: Slice): Account {
  if (!s.loadBit()) return { type: 'none' };
  const addr = loadMsgAddress(s);
  const storageUsed = { cells: s.loadVarUint(7), bits: s.loadVarUint(7) };
  const extraTag = s.loadUint(3);
  if (extraTag > 1) s.fail(`unknown StorageExtraInfo tag ${extraTag}`);
  const storageExtraDictHash = extraTag === 1 ? s.loadHash() : undefined;
  const lastPaid = s.loadUint(32);
  const duePayment = loadMaybe(s, (x) => x.loadCoins());
  const lastTransLt = s.loadUintBig(64);
  const balance = loadCurrencyCollection(s);
  let state: Extract<Account, { type: 'account' }>['state'];
  if (s.loadBit()) {
    state = { type: 'active', ...loadStateInit(s) };
  } else {
    state = s.loadBit() ? { type: 'frozen', stateHash: s.loadHash() } : { type: 'uninit' };
  }
  return { type: 'account', addr, storageUsed, storageExtraDictHash, lastPaid, duePayment, lastTransLt, balance, state };
}

/** shard_account#_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64 = ShardAccount; */
export type ShardAccount = { account: Account; accountCell: number; lastTransHash: string; lastTransLt: bigint };

export function loadShardAccount(s: Slice): ShardAccount {
  const accountCell = s.loadRef();
  const account = loadAccount(new Slice(s.cells, accountCell, 'ShardAccount.account'));
  return { account, accountCell, lastTransHash: s.loadHash(), lastTransLt: s.loadUintBig(64) };
}
