import { Cell, Dictionary, loadMessageRelaxed, type Slice } from '@ton/core';
import { addressList } from './contract-layout.js';
import { rawAddress } from './token-data.js';

/**
 * A multisig v2 order's actions as toncenter's OrderAction (`parse_actions=true`): the order is
 * `Hashmap 8 ^Action`, an action `send_message#f1381e5b mode:uint8 message:^MessageRelaxed` or
 * `update_multisig_param#1d0cfbd3 threshold:uint8 signers:^(Hashmap 8 MsgAddressInt)
 * proposers:(HashmapE 8 MsgAddressInt)`. Bodies read here: empty and text comments (`ton_transfer`);
 * any other body is `unknown` with its opcode.
 */
export type OrderAction = {
  destination: string | null;
  value: string | null;
  /** The message body, base64 BoC. */
  body_raw: string | null;
  parsed: boolean;
  error?: string;
  parsed_body: Record<string, unknown> | null;
  parsed_body_type: string;
  send_mode: number;
};

const SEND_MESSAGE = 0xf1381e5b;
const UPDATE_PARAMS = 0x1d0cfbd3;
const refValue = { serialize: () => undefined, parse: (s: Slice): Cell => s.loadRef() };

function sendAction(s: Slice): OrderAction {
  const send_mode = s.loadUint(8);
  const message = loadMessageRelaxed(s.loadRef().beginParse());
  const destination = message.info.type === 'internal' ? rawAddress(message.info.dest) : null;
  const value = message.info.type === 'internal' ? message.info.value.coins.toString() : null;
  const body = message.body;
  const b = body.beginParse();
  const base = { destination, value, body_raw: body.toBoc().toString('base64'), send_mode };
  if (b.remainingBits === 0 && b.remainingRefs === 0) return { ...base, parsed: true, parsed_body: { comment: null, encrypted: false }, parsed_body_type: 'ton_transfer' };
  if (b.remainingBits >= 32) {
    const opcode = b.loadUint(32);
    if (opcode === 0) {
      try {
        return { ...base, parsed: true, parsed_body: { comment: b.loadStringTail(), encrypted: false }, parsed_body_type: 'ton_transfer' };
      } catch {
        // not UTF-8 snake text: unknown below
      }
    }
    return { ...base, parsed: true, parsed_body: { opcode, data: base.body_raw }, parsed_body_type: 'unknown' };
  }
  return { ...base, parsed: true, parsed_body: { opcode: null, data: base.body_raw }, parsed_body_type: 'unknown' };
}

/** The actions of an order cell (base64 BoC), in key order; an action that does not read is `parsed: false` with the error. */
export function readOrderActions(orderBoc: string): OrderAction[] {
  const order = Cell.fromBase64(orderBoc);
  const dict = Dictionary.loadDirect(Dictionary.Keys.Uint(8), refValue as never, order) as Dictionary<number, Cell>;
  return dict.keys().sort((a, b) => a - b).map((k) => {
    const action = dict.get(k)!;
    try {
      const s = action.beginParse();
      const tag = s.loadUint(32);
      if (tag === SEND_MESSAGE) return sendAction(s);
      if (tag === UPDATE_PARAMS) {
        const new_threshold = s.loadUint(8);
        const new_signers = addressList(s.loadRef());
        const new_proposers = addressList(s.loadMaybeRef());
        return { destination: null, value: null, body_raw: null, parsed: true, parsed_body: { new_threshold, new_signers, new_proposers }, parsed_body_type: 'multisig_update_params', send_mode: 0 };
      }
      return { destination: null, value: null, body_raw: action.toBoc().toString('base64'), parsed: false, error: `unknown action 0x${tag.toString(16).padStart(8, '0')}`, parsed_body: null, parsed_body_type: 'unknown', send_mode: 0 };
    } catch (err) {
      return { destination: null, value: null, body_raw: action.toBoc().toString('base64'), parsed: false, error: (err as Error).message, parsed_body: null, parsed_body_type: 'unknown', send_mode: 0 };
    }
  });
}
