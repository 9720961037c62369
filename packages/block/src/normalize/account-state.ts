import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { hashCell, partBoc } from '../boc/subtree.js';
import { loadAccount } from '../tlb/account.js';
import { b64 } from './normalize-block.js';
import type { AccountStateRecord } from '@tonstream/records';

export type AccountStateContext = {
  /** Raw address `0:ABC…`; an `account_none` state carries no address of its own. */
  account: string;
  lastTransLt: string;
  lastTransHash: string;
  mcSeqno: number | null;
  genUtime: number;
};

/** Representation hash of `account_none$0`, the state of an account that does not exist. */
const ACCOUNT_NONE_HASH = b64(hashCell(new Uint8Array([0]), 1, []).hash);

/**
 * An account's state as toncenter's `AccountStateFull` names it, from an `Account` BoC as
 * getAccountState returns it. Liteservers answer with empty bytes for an account that does not
 * exist (e.g. one that only received bounced messages); that is `account_none`, not an error.
 */
export function accountStateRecord(accountBoc: Uint8Array, ctx: AccountStateContext): AccountStateRecord {
  const base = {
    account: ctx.account,
    last_trans_lt: ctx.lastTransLt,
    last_trans_hash: ctx.lastTransHash,
    mc_block_seqno: ctx.mcSeqno,
    gen_utime: ctx.genUtime,
  };
  if (accountBoc.length === 0) return nonexistent(base, ACCOUNT_NONE_HASH);
  const cells = parseBoc(accountBoc);
  const root = cells.roots[0];
  const account = loadAccount(new Slice(cells, root, 'Account'));
  const stateHash = b64(cells.hash(root));
  if (account.type === 'none') return nonexistent(base, stateHash);
  const state = account.state;
  const cellPart = (i: number | undefined) => (i === undefined ? null : Buffer.from(partBoc(cells, { kind: 'cell', cell: i })).toString('base64'));
  const cellHash = (i: number | undefined) => (i === undefined ? null : b64(cells.hash(i)));
  return {
    ...base,
    account_state_hash: stateHash,
    balance: account.balance.grams.toString(),
    extra_currencies: account.balance.other,
    status: state.type,
    frozen_hash: state.type === 'frozen' ? Buffer.from(state.stateHash, 'hex').toString('base64') : null,
    code_hash: state.type === 'active' ? cellHash(state.code) : null,
    data_hash: state.type === 'active' ? cellHash(state.data) : null,
    code_boc: state.type === 'active' ? cellPart(state.code) : null,
    data_boc: state.type === 'active' ? cellPart(state.data) : null,
  };
}

type StateBase = Pick<AccountStateRecord, 'account' | 'last_trans_lt' | 'last_trans_hash' | 'mc_block_seqno' | 'gen_utime'>;

function nonexistent(base: StateBase, stateHash: string): AccountStateRecord {
  return { ...base, account_state_hash: stateHash, balance: '0', extra_currencies: {}, status: 'nonexist', frozen_hash: null, code_hash: null, data_hash: null, code_boc: null, data_boc: null };
}
