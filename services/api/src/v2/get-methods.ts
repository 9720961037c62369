import { parseTuple, serializeTuple, type TupleItem } from '@ton/core';
import type { tonNode_blockIdExt } from 'ton-lite-client/dist/schema.js';
import { lastTransaction } from '../account-state.js';
import { readBoc, RESULT_BOC } from '../cell-limits.js';
import type { AccountRef, Liteserver } from '../liteserver.js';
import { crc16 } from '../v3/address.js';
import { optional, required } from '../v3/params.js';
import { blockIdExt, masterchainBlock } from './block-ids.js';
import { V2Error } from './envelope.js';
import * as kinds from './kinds.js';
import { transactionId } from './accounts.js';
import { defineMethod } from './method.js';
import { readStack, readStackObjects, tvmEntry, v2StackEntry } from './stack.js';

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
  if (params.length >= MAX_PARAMS_BYTES) throw new V2Error(422, `invalid value for parameter "stack": ${params.length} bytes as a BoC; liteservers take less than ${MAX_PARAMS_BYTES}`);
  const mc = await masterchainBlock(lite, seqno);
  const res = await lite.runMethod(mc, address, getMethodId(method), params);
  let out: TupleItem[] = [];
  if (res.result && res.result.length > 0) {
    // Tuples and cells of the result are walked once per path to a shared cell (parseTuple, the
    // `object` of runGetMethod): a result is read only when that unfolded size is bounded.
    const read = readBoc(res.result, RESULT_BOC);
    if ('refused' in read) {
      if (read.malformed) throw new V2Error(502, `liteserver sent an unreadable result stack: ${read.refused}`);
      throw new V2Error(422, `the get-method's result stack is too large to answer: ${read.refused}`);
    }
    try {
      out = parseTuple(read.roots[0]);
    } catch (err) {
      throw new V2Error(502, `liteserver sent an unreadable result stack: ${(err as Error).message}`, { cause: err });
    }
  }
  return { exitCode: res.exitCode, stack: out, mc, lastTx: (res.proof && lastTransaction(res.proof, address)) || NO_TRANSACTION };
}

const GET_METHOD_PARAMS = {
  address: required(kinds.address, 'Contract address.'),
  method: required(kinds.methodName, 'Get-method name or numeric id.'),
  stack: optional(kinds.json, 'Arguments: [[type, value], …] (num, tvm.Cell, tvm.Slice, tvm.Builder, cell, slice, tuple, list).'),
  seqno: optional(kinds.seqno, 'Masterchain seqno to run at; default the newest.'),
};

export const runGetMethodMethod = defineMethod({
  name: 'runGetMethod',
  summary: 'Runs a get-method; the stack in toncenter num/cell/tuple/list form',
  source: 'liteserver',
  http: 'post',
  params: GET_METHOD_PARAMS,
  async handle({ params: p, lite }) {
    const run = await runGetMethod(lite, p.address, p.method, readStack(p.stack), p.seqno);
    return {
      '@type': 'smc.runResult',
      gas_used: 0,
      stack: run.stack.map(v2StackEntry),
      exit_code: run.exitCode,
      block_id: blockIdExt(run.mc),
      last_transaction_id: transactionId(run.lastTx.lt, run.lastTx.hash),
    };
  },
});

export const runGetMethodStdMethod = defineMethod({
  name: 'runGetMethodStd',
  summary: 'Runs a get-method; the stack as tonlib tvm.stackEntry objects, in and out',
  source: 'liteserver',
  http: 'post',
  params: { ...GET_METHOD_PARAMS, stack: optional(kinds.json, 'Arguments: [tvm.stackEntry…] (tvm.stackEntryNumber, …Cell, …Slice, …Tuple, …List).') },
  async handle({ params: p, lite }) {
    const run = await runGetMethod(lite, p.address, p.method, readStackObjects(p.stack), p.seqno);
    return { '@type': 'smc.runResult', gas_used: 0, stack: run.stack.map((s) => tvmEntry(s)), exit_code: run.exitCode };
  },
});
