/**
 * estimateFee by emulation: the external message runs on the account's current state (from the
 * liteserver) under the chain's current config, in @ton/sandbox's executor (the TON emulator built
 * to WASM), as tonlib does it. Fees are read off the emulated transaction; the import fee of the
 * external message is computed from the config's message prices (param 24/25) over its distinct cells.
 */
import { beginCell, Cell, type Dictionary, loadTransaction, type Message, storeMessage } from '@ton/core';
import { Executor } from '@ton/sandbox';
import { computeFwdFees, configParseMsgPrices } from '@ton/ton';
import type { LiteAccountState } from './account-state.js';
import { distinctCells } from './cell-limits.js';

export type Fees = { '@type': 'fees'; in_fwd_fee: number; storage_fee: number; gas_fee: number; fwd_fee: number };
export type FeeEstimate = { ok: true; sourceFees: Fees } | { ok: false; error: string; exitCode?: number };

let executor: Promise<Executor> | undefined;

/** The ShardAccount the emulator takes: `account:^Account last_trans_hash:bits256 last_trans_lt:uint64`. */
function shardAccountBoc(state: LiteAccountState): string {
  const account = state.boc.length > 0 ? Cell.fromBoc(state.boc)[0] : beginCell().storeBit(0).endCell();
  return beginCell().storeRef(account).storeBuffer(state.lastTx.hash, 32).storeUint(state.lastTx.lt, 64).endCell().toBoc().toString('base64');
}

const num = (v: bigint | undefined) => Number(v ?? 0n);

export async function estimateFees(state: LiteAccountState, message: Message, config: Dictionary<number, Cell>, ignoreChksig: boolean, now: number): Promise<FeeEstimate> {
  executor ??= Executor.create();
  const exec = await executor;
  const messageCell = beginCell().store(storeMessage(message)).endCell();
  const res = await exec.runTransaction({
    config: beginCell().storeDictDirect(config).endCell().toBoc().toString('base64'),
    libs: null,
    verbosity: 'short',
    shardAccount: shardAccountBoc(state),
    message: messageCell,
    now,
    lt: state.lastTx.lt + 1_000_000n,
    randomSeed: Buffer.alloc(32),
    ignoreChksig,
    debugEnabled: false,
  });
  if (!res.result.success) {
    const vm = res.result.vmResults as { vm_exit_code?: number } | undefined;
    return { ok: false, error: res.result.error, exitCode: vm?.vm_exit_code };
  }
  const tx = loadTransaction(Cell.fromBase64(res.result.transaction).beginParse());
  const d = tx.description;
  if (d.type !== 'generic') return { ok: false, error: `unexpected transaction type ${d.type}` };
  const workchain = message.info.dest && 'workChain' in message.info.dest ? message.info.dest.workChain : 0;
  const prices = configParseMsgPrices(config.get(workchain === -1 ? 24 : 25)?.beginParse());
  // The import fee counts each distinct cell once, the root and its bits free (transaction.cpp); @ton/ton's
  // computeExternalMessageFees counts a shared cell at every path to it, 2^40 times in a 40-cell DAG.
  const size = distinctCells(messageCell);
  return {
    ok: true,
    sourceFees: {
      '@type': 'fees',
      in_fwd_fee: num(computeFwdFees(prices, BigInt(size.cells - 1), BigInt(size.bits - messageCell.bits.length))),
      storage_fee: num(d.storagePhase?.storageFeesCollected),
      gas_fee: d.computePhase.type === 'vm' ? num(d.computePhase.gasFees) : 0,
      fwd_fee: num(d.actionPhase?.totalFwdFees ?? undefined),
    },
  };
}
