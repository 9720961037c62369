import { parseTuple, serializeTuple, type TupleItem } from '@ton/core';
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { lastTransaction } from './account-state.js';
import { crc16 } from './address.js';
import { masterchainBlock } from './block-ids.js';
import { readBoc, RESULT_BOC } from './cell-limits.js';
import { ChainError } from './chain-error.js';
import type { AccountRef, Liteserver } from './liteserver.js';

/** A get-method's id: its number, or crc16(name) | 0x10000 as FunC and Tolk compute it. */
export function getMethodId(method: string | bigint): bigint {
  return typeof method === 'bigint' ? method : BigInt((crc16(Buffer.from(method, 'utf8')) & 0xffff) | 0x10000);
}

/** Largest stack a liteserver runs a get-method with (lite-server.cpp: `more than 64k parameter bytes passed`). */
const MAX_PARAMS_BYTES = 65_536;

export type GetMethodRun = { exitCode: number; stack: TupleItem[]; mc: tonNode_blockIdExt; lastTx: { lt: bigint; hash: Buffer } };

const NO_TRANSACTION = { lt: 0n, hash: Buffer.alloc(32) };

/**
 * Runs a get-method on the liteserver (runSmcMethod, result and state proof). The liteserver does
 * not report gas: `gas_used` is answered as 0 (toncenter's tonlib runs the TVM itself).
 * `lastTx`: the account's last transaction in the state the method ran on (lt 0 and a zero hash
 * for an account that does not exist, as tonlib answers).
 */
export async function runGetMethod(lite: Liteserver, address: AccountRef, method: string | bigint, stack: TupleItem[], seqno?: number): Promise<GetMethodRun> {
  const params = serializeTuple(stack).toBoc();
  if (params.length >= MAX_PARAMS_BYTES) throw new ChainError(422, `invalid value for parameter "stack": ${params.length} bytes as a BoC; liteservers take less than ${MAX_PARAMS_BYTES}`);
  const mc = await masterchainBlock(lite, seqno);
  const res = await lite.runMethod(mc, address, getMethodId(method), params);
  let out: TupleItem[] = [];
  if (res.result && res.result.length > 0) {
    // Tuples and cells of the result are walked once per path to a shared cell (parseTuple, the
    // `object` of runGetMethod): a result is read only when that unfolded size is bounded.
    const read = readBoc(res.result, RESULT_BOC);
    if ('refused' in read) {
      if (read.malformed) throw new ChainError(502, `liteserver sent an unreadable result stack: ${read.refused}`);
      throw new ChainError(422, `the get-method's result stack is too large to answer: ${read.refused}`);
    }
    try {
      out = parseTuple(read.roots[0]);
    } catch (err) {
      throw new ChainError(502, `liteserver sent an unreadable result stack: ${(err as Error).message}`, { cause: err });
    }
  }
  return { exitCode: res.exitCode, stack: out, mc, lastTx: (res.proof && lastTransaction(res.proof, address)) || NO_TRANSACTION };
}
