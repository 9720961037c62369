import { blockIdExt } from '../chain/block-ids.js';
import { runGetMethod } from '../chain/get-method.js';
import { optional, required } from '../http/params.js';
import * as kinds from './kinds.js';
import { transactionId } from './accounts.js';
import { defineMethod } from './method.js';
import { readStack, readStackObjects, tvmEntry, v2StackEntry } from '../chain/stack.js';

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
