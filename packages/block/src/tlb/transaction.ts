import type { Slice } from '../boc/slice.js';
import {
  type AccountStatus,
  type CurrencyCollection,
  loadAccountStatus,
  loadCurrencyCollection,
  loadMaybe,
  loadStatusChange,
  loadStorageUsedShort,
  type StatusChange,
  type StorageUsedShort,
} from './common.js';
import { keyToNumber, walkHashmapE } from './hashmap.js';
import { loadMessageRef, type Message } from './message.js';

/**
 * transaction$0111 account_addr:bits256 lt:uint64 prev_trans_hash:bits256 prev_trans_lt:uint64 now:uint32
 *   outmsg_cnt:uint15 orig_status:AccountStatus end_status:AccountStatus
 *   ^[ in_msg:(Maybe ^(Message Any)) out_msgs:(HashmapE 15 ^(Message Any)) ]
 *   total_fees:CurrencyCollection state_update:^(HASH_UPDATE Account) description:^TransactionDescr = Transaction;
 */
export type Transaction = {
  cell: number;
  accountAddr: string;
  lt: bigint;
  prevTransHash: string;
  prevTransLt: bigint;
  now: number;
  outMsgCnt: number;
  origStatus: AccountStatus;
  endStatus: AccountStatus;
  inMsg?: Message;
  /** In out_msgs key order (the order the transaction created them). */
  outMsgs: Message[];
  totalFees: CurrencyCollection;
  /** update_hashes#72 old_hash:bits256 new_hash:bits256 */
  stateUpdate: { oldHash: string; newHash: string };
  description: TransactionDescr;
};

export type TrStoragePhase = { storageFeesCollected: bigint; storageFeesDue?: bigint; statusChange: StatusChange };
export type TrCreditPhase = { dueFeesCollected?: bigint; credit: CurrencyCollection };
export type ComputeSkipReason = 'no_state' | 'bad_state' | 'no_gas' | 'suspended';
export type TrComputePhase =
  | { type: 'skipped'; reason: ComputeSkipReason }
  | {
      type: 'vm';
      success: boolean;
      msgStateUsed: boolean;
      accountActivated: boolean;
      gasFees: bigint;
      gasUsed: bigint;
      gasLimit: bigint;
      gasCredit?: bigint;
      mode: number;
      exitCode: number;
      exitArg?: number;
      vmSteps: number;
      vmInitStateHash: string;
      vmFinalStateHash: string;
    };
export type TrActionPhase = {
  success: boolean;
  valid: boolean;
  noFunds: boolean;
  statusChange: StatusChange;
  totalFwdFees?: bigint;
  totalActionFees?: bigint;
  resultCode: number;
  resultArg?: number;
  totActions: number;
  specActions: number;
  skippedActions: number;
  msgsCreated: number;
  actionListHash: string;
  totMsgSize: StorageUsedShort;
};
export type TrBouncePhase =
  | { type: 'negfunds' }
  | { type: 'nofunds'; msgSize: StorageUsedShort; reqFwdFees: bigint }
  | { type: 'ok'; msgSize: StorageUsedShort; msgFees: bigint; fwdFees: bigint };
export type SplitMergeInfo = { curShardPfxLen: number; accSplitDepth: number; thisAddr: string; siblingAddr: string };

export type TransactionDescr =
  | {
      type: 'ord';
      creditFirst: boolean;
      storagePh?: TrStoragePhase;
      creditPh?: TrCreditPhase;
      computePh: TrComputePhase;
      action?: TrActionPhase;
      aborted: boolean;
      bounce?: TrBouncePhase;
      destroyed: boolean;
    }
  | { type: 'storage'; storagePh: TrStoragePhase }
  | { type: 'tick_tock'; isTock: boolean; storagePh: TrStoragePhase; computePh: TrComputePhase; action?: TrActionPhase; aborted: boolean; destroyed: boolean }
  | { type: 'split_prepare'; splitInfo: SplitMergeInfo; storagePh?: TrStoragePhase; computePh: TrComputePhase; action?: TrActionPhase; aborted: boolean; destroyed: boolean }
  | { type: 'split_install'; splitInfo: SplitMergeInfo; prepareTransaction: number; installed: boolean }
  | { type: 'merge_prepare'; splitInfo: SplitMergeInfo; storagePh: TrStoragePhase; aborted: boolean }
  | {
      type: 'merge_install';
      splitInfo: SplitMergeInfo;
      prepareTransaction: number;
      storagePh?: TrStoragePhase;
      creditPh?: TrCreditPhase;
      computePh: TrComputePhase;
      action?: TrActionPhase;
      aborted: boolean;
      destroyed: boolean;
    };

export function loadTransaction(s: Slice): Transaction {
  const cell = s.cell;
  if (s.loadUint(4) !== 0b0111) s.fail('not a Transaction (tag 0111)');
  const accountAddr = s.loadHash();
  const lt = s.loadUintBig(64);
  const prevTransHash = s.loadHash();
  const prevTransLt = s.loadUintBig(64);
  const now = s.loadUint(32);
  const outMsgCnt = s.loadUint(15);
  const origStatus = loadAccountStatus(s);
  const endStatus = loadAccountStatus(s);
  const msgs = s.loadRefSlice(`${s.path}.messages`);
  const inMsg = msgs.loadBit() ? loadMessageRef(msgs, `${s.path}.in_msg`) : undefined;
  const outMsgs: Message[] = [];
  walkHashmapE(msgs, 15, (key, v) => {
    const m = loadMessageRef(v, `${s.path}.out_msgs[${keyToNumber(key)}]`);
    outMsgs.push(m);
  });
  const totalFees = loadCurrencyCollection(s);
  const su = s.loadRefSlice(`${s.path}.state_update`);
  if (su.loadUint(8) !== 0x72) su.fail('not a HASH_UPDATE (tag 0x72)');
  const stateUpdate = { oldHash: su.loadHash(), newHash: su.loadHash() };
  const description = loadTransactionDescr(s.loadRefSlice(`${s.path}.description`));
  return { cell, accountAddr, lt, prevTransHash, prevTransLt, now, outMsgCnt, origStatus, endStatus, inMsg, outMsgs, totalFees, stateUpdate, description };
}

export function loadTransactionDescr(s: Slice): TransactionDescr {
  const tag = s.loadUint(3);
  switch (tag) {
    case 0b000: {
      if (s.loadBit()) return { type: 'storage', storagePh: loadStoragePhase(s) };
      const creditFirst = s.loadBit();
      const storagePh = loadMaybe(s, loadStoragePhase);
      const creditPh = loadMaybe(s, loadCreditPhase);
      const computePh = loadComputePhase(s);
      const action = loadActionRef(s);
      const aborted = s.loadBit();
      const bounce = loadMaybe(s, loadBouncePhase);
      const destroyed = s.loadBit();
      return { type: 'ord', creditFirst, storagePh, creditPh, computePh, action, aborted, bounce, destroyed };
    }
    case 0b001: {
      const isTock = s.loadBit();
      const storagePh = loadStoragePhase(s);
      const computePh = loadComputePhase(s);
      const action = loadActionRef(s);
      return { type: 'tick_tock', isTock, storagePh, computePh, action, aborted: s.loadBit(), destroyed: s.loadBit() };
    }
    case 0b010: {
      const splitInstall = s.loadBit();
      const splitInfo = loadSplitMergeInfo(s);
      if (splitInstall) return { type: 'split_install', splitInfo, prepareTransaction: s.loadRef(), installed: s.loadBit() };
      const storagePh = loadMaybe(s, loadStoragePhase);
      const computePh = loadComputePhase(s);
      const action = loadActionRef(s);
      return { type: 'split_prepare', splitInfo, storagePh, computePh, action, aborted: s.loadBit(), destroyed: s.loadBit() };
    }
    case 0b011: {
      const mergeInstall = s.loadBit();
      const splitInfo = loadSplitMergeInfo(s);
      if (!mergeInstall) return { type: 'merge_prepare', splitInfo, storagePh: loadStoragePhase(s), aborted: s.loadBit() };
      const prepareTransaction = s.loadRef();
      const storagePh = loadMaybe(s, loadStoragePhase);
      const creditPh = loadMaybe(s, loadCreditPhase);
      const computePh = loadComputePhase(s);
      const action = loadActionRef(s);
      return { type: 'merge_install', splitInfo, prepareTransaction, storagePh, creditPh, computePh, action, aborted: s.loadBit(), destroyed: s.loadBit() };
    }
    default:
      return s.fail(`unknown TransactionDescr tag ${tag.toString(2).padStart(3, '0')}`);
  }
}

/** tr_phase_storage$_ storage_fees_collected:Grams storage_fees_due:(Maybe Grams) status_change:AccStatusChange */
function loadStoragePhase(s: Slice): TrStoragePhase {
  return { storageFeesCollected: s.loadCoins(), storageFeesDue: loadMaybe(s, (x) => x.loadCoins()), statusChange: loadStatusChange(s) };
}

/** tr_phase_credit$_ due_fees_collected:(Maybe Grams) credit:CurrencyCollection */
function loadCreditPhase(s: Slice): TrCreditPhase {
  return { dueFeesCollected: loadMaybe(s, (x) => x.loadCoins()), credit: loadCurrencyCollection(s) };
}

/**
 * tr_phase_compute_skipped$0 reason:ComputeSkipReason  (cskip_no_state$00 cskip_bad_state$01 cskip_no_gas$10 cskip_suspended$110)
 * tr_phase_compute_vm$1 success:Bool msg_state_used:Bool account_activated:Bool gas_fees:Grams
 *   ^[ gas_used:(VarUInteger 7) gas_limit:(VarUInteger 7) gas_credit:(Maybe (VarUInteger 3)) mode:int8 exit_code:int32
 *      exit_arg:(Maybe int32) vm_steps:uint32 vm_init_state_hash:bits256 vm_final_state_hash:bits256 ]
 */
function loadComputePhase(s: Slice): TrComputePhase {
  if (!s.loadBit()) {
    const r = s.loadUint(2);
    if (r === 0) return { type: 'skipped', reason: 'no_state' };
    if (r === 1) return { type: 'skipped', reason: 'bad_state' };
    if (r === 2) return { type: 'skipped', reason: 'no_gas' };
    if (!s.loadBit()) return { type: 'skipped', reason: 'suspended' };
    return s.fail('unknown ComputeSkipReason 111');
  }
  const success = s.loadBit();
  const msgStateUsed = s.loadBit();
  const accountActivated = s.loadBit();
  const gasFees = s.loadCoins();
  const d = s.loadRefSlice(`${s.path}.compute_ph`);
  return {
    type: 'vm',
    success,
    msgStateUsed,
    accountActivated,
    gasFees,
    gasUsed: d.loadVarUint(7),
    gasLimit: d.loadVarUint(7),
    gasCredit: loadMaybe(d, (x) => x.loadVarUint(3)),
    mode: d.loadInt(8),
    exitCode: d.loadInt(32),
    exitArg: loadMaybe(d, (x) => x.loadInt(32)),
    vmSteps: d.loadUint(32),
    vmInitStateHash: d.loadHash(),
    vmFinalStateHash: d.loadHash(),
  };
}

function loadActionRef(s: Slice): TrActionPhase | undefined {
  return s.loadBit() ? loadActionPhase(s.loadRefSlice(`${s.path}.action`)) : undefined;
}

/**
 * tr_phase_action$_ success:Bool valid:Bool no_funds:Bool status_change:AccStatusChange total_fwd_fees:(Maybe Grams)
 *   total_action_fees:(Maybe Grams) result_code:int32 result_arg:(Maybe int32) tot_actions:uint16 spec_actions:uint16
 *   skipped_actions:uint16 msgs_created:uint16 action_list_hash:bits256 tot_msg_size:StorageUsedShort
 */
function loadActionPhase(s: Slice): TrActionPhase {
  return {
    success: s.loadBit(),
    valid: s.loadBit(),
    noFunds: s.loadBit(),
    statusChange: loadStatusChange(s),
    totalFwdFees: loadMaybe(s, (x) => x.loadCoins()),
    totalActionFees: loadMaybe(s, (x) => x.loadCoins()),
    resultCode: s.loadInt(32),
    resultArg: loadMaybe(s, (x) => x.loadInt(32)),
    totActions: s.loadUint(16),
    specActions: s.loadUint(16),
    skippedActions: s.loadUint(16),
    msgsCreated: s.loadUint(16),
    actionListHash: s.loadHash(),
    totMsgSize: loadStorageUsedShort(s),
  };
}

/**
 * tr_phase_bounce_negfunds$00  tr_phase_bounce_nofunds$01 msg_size:StorageUsedShort req_fwd_fees:Grams
 * tr_phase_bounce_ok$1 msg_size:StorageUsedShort msg_fees:Grams fwd_fees:Grams
 */
function loadBouncePhase(s: Slice): TrBouncePhase {
  if (s.loadBit()) return { type: 'ok', msgSize: loadStorageUsedShort(s), msgFees: s.loadCoins(), fwdFees: s.loadCoins() };
  if (!s.loadBit()) return { type: 'negfunds' };
  return { type: 'nofunds', msgSize: loadStorageUsedShort(s), reqFwdFees: s.loadCoins() };
}

/** split_merge_info$_ cur_shard_pfx_len:(## 6) acc_split_depth:(## 6) this_addr:bits256 sibling_addr:bits256 */
function loadSplitMergeInfo(s: Slice): SplitMergeInfo {
  return { curShardPfxLen: s.loadUint(6), accSplitDepth: s.loadUint(6), thisAddr: s.loadHash(), siblingAddr: s.loadHash() };
}
