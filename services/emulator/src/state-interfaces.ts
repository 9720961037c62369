import { rethrowBugs } from '@tonstream/errors';
import { Cell } from '@ton/core';
import { type ContractInterfaces, stateInterfaces } from '@tonstream/actions';
import { accountStateRecord } from '@tonstream/block';
import type { DetectedInterfaces, InterfaceLookup } from '@tonstream/emulation';

/**
 * What the emulated states after a trace tell the classifier, by raw address: `stateInterfaces`
 * of each state's contract facts (derived here, where the state is decoded, by @tonstream/contracts'
 * `factsOf`), as the tracer does for confirmed states (Jetton masters and wallets, NFT items with
 * collection, index and owner). A state that cannot be read proves nothing and is left out.
 */
export function interfacesOfStates(finalStates: ReadonlyMap<string, string>): Map<string, ContractInterfaces> {
  const out = new Map<string, ContractInterfaces>();
  for (const [account, shardAccount] of finalStates) {
    try {
      // ShardAccount: account:^Account last_trans_hash:bits256 last_trans_lt:uint64
      const s = Cell.fromBase64(shardAccount).beginParse();
      const accountCell = s.loadRef();
      const lastTransHash = s.loadBuffer(32).toString('base64');
      const lastTransLt = s.loadUintBig(64).toString();
      const state = accountStateRecord(accountCell.toBoc(), { account, lastTransLt, lastTransHash, mcSeqno: null, genUtime: 0 });
      const found = stateInterfaces(state);
      if (found) out.set(account, found);
    } catch (err) {
      rethrowBugs(err);
      continue;
    }
  }
  return out;
}

/**
 * The classifier's lookup for a pending trace: what the emulator probed by get-method (Jetton wallets
 * with their balance after the trace) first, then what the states' code and data show.
 */
export function pendingLookup(detected: Readonly<Record<string, DetectedInterfaces>>, fromStates: ReadonlyMap<string, ContractInterfaces>): InterfaceLookup {
  return (address) => {
    const probed = detected[address];
    const known = fromStates.get(address);
    if (!probed && !known) return undefined;
    return { ...known, ...probed };
  };
}
