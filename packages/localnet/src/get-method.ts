import { Cell as CoreCell, loadShardAccount, parseTuple, serializeTuple, type TupleItem } from '@ton/core';
import type { Blockchain } from '@ton/sandbox';
import { LocalnetError } from './errors.js';

/** Gas limit of a get method, as liteservers allow (and as @ton/sandbox defaults to). */
export const GET_METHOD_GAS_LIMIT = 10_000_000n;

export type GetMethodOutput = {
  exitCode: number;
  gasUsed: bigint;
  /** The result stack (empty when the method failed). */
  stack: TupleItem[];
  /** BoC of the result VmStack, as liteServer.runSmcMethod returns it; empty when the method failed. */
  stackBoc: Uint8Array;
};

/**
 * Runs a get method with the sandbox's executor on a given account state (a ShardAccount BoC in
 * base64), so the answer matches the block it is asked at even while a round is executing.
 */
export async function runGetMethodOn(
  bc: Blockchain,
  shardAccountB64: string,
  method: string | number,
  stack: TupleItem[],
  ctx: { now: number; randomSeed: Uint8Array },
): Promise<GetMethodOutput> {
  const sa = loadShardAccount(CoreCell.fromBase64(shardAccountB64).beginParse());
  const account = sa.account;
  if (!account || account.storage.state.type !== 'active') throw new LocalnetError('not_found', 'account is not active: no code to run');
  const { code, data } = account.storage.state.state;
  if (!code || !data) throw new LocalnetError('not_found', 'account has no code or data');
  const res = await bc.executor.runGetMethod({
    code,
    data,
    methodId: typeof method === 'number' ? method : methodId(method),
    stack,
    config: bc.configBase64,
    verbosity: 'short',
    libs: bc.libs,
    address: account.addr,
    unixTime: ctx.now,
    balance: account.storage.balance.coins,
    randomSeed: Buffer.from(ctx.randomSeed),
    gasLimit: GET_METHOD_GAS_LIMIT,
    debugEnabled: false,
  });
  if (!res.output.success) throw new LocalnetError('failed', `get method ${method}: ${res.output.error}`);
  const gasUsed = BigInt(res.output.gas_used);
  const exitCode = res.output.vm_exit_code;
  if (exitCode !== 0 && exitCode !== 1) return { exitCode, gasUsed, stack: [], stackBoc: new Uint8Array() };
  const stackBoc = Buffer.from(res.output.stack, 'base64');
  return { exitCode, gasUsed, stack: parseTuple(CoreCell.fromBoc(stackBoc)[0]), stackBoc };
}

/** The method id of a get method name: (crc16-xmodem(name) & 0xffff) | 0x10000. */
export function methodId(name: string): number {
  let crc = 0;
  for (const byte of Buffer.from(name, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc | 0x10000;
}

/** A stack as a VmStack BoC, for callers that hold one (e.g. a liteserver's runSmcMethod params). */
export function stackFromBoc(boc: Uint8Array): TupleItem[] {
  return boc.length === 0 ? [] : parseTuple(CoreCell.fromBoc(Buffer.from(boc))[0]);
}

export function stackToBoc(stack: TupleItem[]): Uint8Array {
  return serializeTuple(stack).toBoc();
}
