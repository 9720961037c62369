import { beginCell, type Cell, storeMessage } from '@ton/core';
import type { Liteserver } from '../chain/liteserver.js';
import { buildExternal, estimateFee, normalizedHash, sendExternal } from '../chain/send.js';
import { optional, required, withDefault } from '../http/params.js';
import { V2Error } from './envelope.js';
import * as kinds from './kinds.js';
import { defineMethod } from './method.js';

/** Sending and fee estimation (docs/toncenter-v2.md §2.6): messages go to the liteserver's sendMessage. */

const bocParam = (what: string) => ({
  ...required(kinds.boc, what),
  read(texts: string[], name: string) {
    if (texts.length === 0) throw new V2Error(422, 'empty boc');
    return required(kinds.boc, what).read(texts, name);
  },
});

export const sendBoc = defineMethod({
  name: 'sendBoc',
  summary: 'Sends an external message (BoC, base64)',
  source: 'liteserver',
  http: 'post',
  params: { boc: bocParam('The external message, a base64 BoC.') },
  async handle({ params, lite }) {
    await sendExternal(lite, params.boc);
    return { '@type': 'ok' };
  },
});

async function sendReturningHash(lite: Liteserver, boc: Cell) {
  const m = await sendExternal(lite, boc);
  return { '@type': 'raw.extMessageInfo', hash: boc.hash().toString('base64'), hash_norm: normalizedHash(m).toString('base64') };
}

export const sendBocReturnHash = defineMethod({
  name: 'sendBocReturnHash',
  summary: 'Sends an external message and answers its hash and normalised hash',
  source: 'liteserver',
  http: 'post',
  params: { boc: bocParam('The external message, a base64 BoC.') },
  handle: ({ params, lite }) => sendReturningHash(lite, params.boc),
});

export const sendBocReturnHashNoError = defineMethod({
  name: 'sendBocReturnHashNoError',
  summary: 'sendBocReturnHash (toncenter answers a rejection 400 here only; tonstream does in every send method)',
  source: 'liteserver',
  http: 'post',
  params: { boc: bocParam('The external message, a base64 BoC.') },
  handle: ({ params, lite }) => sendReturningHash(lite, params.boc),
});

const queryParams = {
  address: required(kinds.address, 'Destination account.'),
  body: required(kinds.boc, 'Message body, a base64 BoC.'),
  init_code: optional(kinds.boc, 'Code of the StateInit, a base64 BoC.'),
  init_data: optional(kinds.boc, 'Data of the StateInit, a base64 BoC.'),
};

export const sendQuery = defineMethod({
  name: 'sendQuery',
  summary: 'Builds an external message from address, body and optional StateInit, and sends it',
  source: 'liteserver',
  http: 'post',
  params: queryParams,
  async handle({ params, lite }) {
    const message = buildExternal(params);
    await lite.sendMessage(beginCell().store(storeMessage(message)).endCell().toBoc());
    return { '@type': 'ok' };
  },
});

export const estimateFeeMethod = defineMethod({
  name: 'estimateFee',
  summary: 'Fees of an external message, by emulating it on the account (TON emulator in @ton/sandbox)',
  source: 'liteserver',
  http: 'post',
  params: { ...queryParams, ignore_chksig: withDefault(kinds.bool, true, 'Skip the signature check; default true.') },
  async handle({ params, lite }) {
    const source_fees = await estimateFee(lite, params, params.ignore_chksig);
    return { '@type': 'query.fees', source_fees, destination_fees: [] };
  },
});
