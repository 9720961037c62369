import { Address, beginCell, type Cell, loadCommonMessageInfo, type Message, type Slice, storeMessage } from '@ton/core';
import { readLiteAccountState } from './account-state.js';
import type { AccountAddress } from './address.js';
import { configDict } from './config.js';
import { ChainError } from './chain-error.js';
import { estimateFees } from './fee-estimate.js';
import { type Liteserver, LiteClientError } from './liteserver.js';

/** Sending external messages and estimating their fees (v2 send*, estimateFee; v3 /message, /estimateFee). */

/**
 * Skips an inline StateInit: `split_depth:(Maybe (## 5)) special:(Maybe TickTock) code:(Maybe ^Cell)
 * data:(Maybe ^Cell) library:(HashmapE 256 SimpleLib)`, the last three each a bit and a reference.
 */
function skipStateInit(s: Slice): void {
  if (s.loadBit()) s.skip(5);
  if (s.loadBit()) s.skip(2);
  for (let i = 0; i < 3; i++) if (s.loadBit()) s.loadRef();
}

/**
 * The BoC as an external-in message, its StateInit skipped (`init` null): @ton/core's loadStateInit
 * reads the library dictionary entry by entry, and a dictionary of 40 cells whose forks point twice
 * to the same child holds 2^40 entries. Nothing here needs the StateInit: the normalised hash drops
 * it, and the liteserver receives the BoC as sent. 422 naming `boc` when it is no such message.
 */
export function externalMessage(cell: Cell): Message {
  let m: Message;
  try {
    const s = cell.beginParse();
    const info = loadCommonMessageInfo(s);
    if (s.loadBit()) {
      if (s.loadBit()) s.loadRef();
      else skipStateInit(s);
    }
    m = { info, init: null, body: s.loadBit() ? s.loadRef() : s.asCell() };
  } catch (err) {
    throw new ChainError(422, `invalid value for parameter "boc": not a message (${(err as Error).message})`);
  }
  if (m.info.type !== 'external-in') throw new ChainError(422, `invalid value for parameter "boc": an ${m.info.type} message; only external-in messages can be sent`);
  return m;
}

/** TEP-467 normalised hash: src addr_none, import_fee 0, no init, body in a ref. */
export function normalizedHash(m: Message): Buffer {
  if (m.info.type !== 'external-in') throw new TypeError('not external-in');
  const norm: Message = { info: { type: 'external-in', src: null, dest: m.info.dest, importFee: 0n }, init: null, body: m.body };
  return beginCell().store(storeMessage(norm, { forceRef: true })).endCell().hash();
}

/**
 * Sends an external-in message. A message the node refuses (LITE_SERVER_UNKNOWN: cannot apply
 * external message …, with its exit code) is the caller's: 400 with the node's words. toncenter
 * answers 500 there (docs/toncenter-v2.md §2.6) except in sendBocReturnHashNoError; an unreachable or
 * slow liteserver stays 503 / 504.
 */
export async function sendExternal(lite: Liteserver, cell: Cell): Promise<Message> {
  const m = externalMessage(cell);
  try {
    await lite.sendMessage(cell.toBoc());
  } catch (err) {
    if (err instanceof LiteClientError && err.status === 500) throw new ChainError(400, err.message, { cause: err });
    throw err;
  }
  return m;
}

/** The external-in message of `address`, `body` and an optional StateInit (both halves or neither). */
export function buildExternal(p: { address: AccountAddress; body: Cell; init_code?: Cell; init_data?: Cell }): Message {
  if ((p.init_code === undefined) !== (p.init_data === undefined)) throw new ChainError(422, 'init_code and init_data should be used together');
  const dest = new Address(p.address.workchain, Buffer.from(p.address.hash));
  return { info: { type: 'external-in', src: null, dest, importFee: 0n }, init: p.init_code && p.init_data ? { code: p.init_code, data: p.init_data } : null, body: p.body };
}

/** Fees of an external message by emulation on the account's current state (shared with v3 /estimateFee). */
export async function estimateFee(lite: Liteserver, p: { address: AccountAddress; body: Cell; init_code?: Cell; init_data?: Cell }, ignoreChksig: boolean) {
  const message = buildExternal(p);
  const [state, config] = await Promise.all([readLiteAccountState(lite, p.address), configDict(lite, undefined)]);
  const res = await estimateFees(state, message, config, ignoreChksig, Math.max(state.syncUtime, Math.floor(Date.now() / 1000)));
  if (!res.ok) throw new ChainError(422, `message not accepted by the account: ${res.error}${res.exitCode !== undefined ? ` (exit code ${res.exitCode})` : ''}`);
  return res.sourceFees;
}
