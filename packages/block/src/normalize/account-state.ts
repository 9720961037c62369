import { parseBoc } from '../boc/parse-boc.js';
import { Slice } from '../boc/slice.js';
import { partBoc } from '../boc/subtree.js';
import { loadAccount } from '../tlb/account.js';
import type { AccountStateRecord } from './records.js';

export type AccountStateContext = {
  /** Raw address `0:ABC…`; an `account_none` state carries no address of its own. */
  account: string;
  lastTransLt: string;
  lastTransHash: string;
  mcSeqno: number | null;
  genUtime: number;
};

/** An account's state as toncenter's `AccountStateFull` names it, from an `Account` BoC (as getAccountState returns it). */
export function accountStateRecord(accountBoc: Uint8Array, ctx: AccountStateContext): AccountStateRecord {
  const cells = parseBoc(accountBoc);
  const root = cells.roots[0];
  const account = loadAccount(new Slice(cells, root, 'Account'));
  const base = {
    account: ctx.account,
    account_state_hash: b64(cells.hash(root)),
    last_trans_lt: ctx.lastTransLt,
    last_trans_hash: ctx.lastTransHash,
    mc_block_seqno: ctx.mcSeqno,
    gen_utime: ctx.genUtime,
  };
  if (account.type === 'none') {
    return { ...base, balance: '0', extra_currencies: {}, status: 'nonexist', frozen_hash: null, code_hash: null, data_hash: null, code_boc: null, data_boc: null };
  }
  const state = account.state;
  const cellPart = (i: number | undefined) => (i === undefined ? null : Buffer.from(partBoc(cells, { kind: 'cell', cell: i })).toString('base64'));
  const cellHash = (i: number | undefined) => (i === undefined ? null : b64(cells.hash(i)));
  return {
    ...base,
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

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
