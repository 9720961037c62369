import { beginCell, type Cell, Dictionary, type Slice } from '@ton/core';
import { countedValue } from '../tlb/dict.js';
import { readExactly, requireAddress } from './contract-layout.js';

/** What get_vesting_data and get_whitelist answer (toncenter's VestingInfo). Amount is a decimal string. */
export type VestingData = {
  start_time: number;
  total_duration: number;
  unlock_period: number;
  cliff_duration: number;
  total_amount: string;
  sender_address: string;
  owner_address: string;
  whitelist: string[];
};

const flagValue = { serialize: () => undefined, parse: (s: Slice) => s.loadBit() };

/**
 * Vesting wallet v1 (ton-blockchain/vesting-contract): `seqno:uint32 subwallet_id:uint32
 * public_key:uint256 whitelist:(HashmapE 264 Bool) ^[vesting_start_time:uint64
 * vesting_total_duration:uint32 unlock_period:uint32 cliff_duration:uint32 vesting_total_amount:Coins
 * vesting_sender_address:MsgAddress owner_address:MsgAddress]`; the whitelist is keyed by
 * `workchain:int8 hash:uint256` (264 bits) with a one-bit value, in key order.
 */
export function readVestingData(data: Cell): VestingData | null {
  return readExactly(data, (s) => {
    s.skip(32 + 32 + 256);
    const whitelistDict = s.loadMaybeRef();
    const params = s.loadRef();
    const p = params.beginParse();
    const value = {
      start_time: Number(p.loadUintBig(64)),
      total_duration: p.loadUint(32),
      unlock_period: p.loadUint(32),
      cliff_duration: p.loadUint(32),
      total_amount: p.loadCoins().toString(),
      sender_address: requireAddress(p),
      owner_address: requireAddress(p),
      whitelist: whitelist(whitelistDict),
    };
    if (p.remainingBits !== 0 || p.remainingRefs !== 0) throw new Error('vesting parameters longer than the layout');
    return value;
  });
}

function whitelist(dict: Cell | null): string[] {
  if (dict === null) return [];
  const d = Dictionary.loadDirect(Dictionary.Keys.BitString(264), countedValue(flagValue) as never, dict);
  return d.keys().map((key) => {
    const k = beginCell().storeBits(key).endCell().beginParse();
    return `${k.loadInt(8)}:${k.loadBuffer(32).toString('hex').toUpperCase()}`;
  });
}
