import { msgAddress, msgAddressExt, msgAddressInt } from './address.js';
import { currencyCollection, grams } from './currency.js';
import { anon, bigUint, bool, cons, either, eitherCell, maybe, oneOf, ref, refCell, uint } from './primitives.js';

/*
 *   int_msg_info$0 ihr_disabled:Bool bounce:Bool bounced:Bool src:MsgAddress dest:MsgAddressInt
 *     value:CurrencyCollection ihr_fee:Grams fwd_fee:Grams created_lt:uint64 created_at:uint32 = CommonMsgInfoRelaxed;
 *   ext_out_msg_info$11 src:MsgAddress dest:MsgAddressExt created_lt:uint64 created_at:uint32 = CommonMsgInfoRelaxed;
 *   tick_tock$_ tick:Bool tock:Bool = TickTock;
 *   _ fixed_prefix_length:(Maybe (## 5)) special:(Maybe TickTock) code:(Maybe ^Cell) data:(Maybe ^Cell)
 *     library:(Maybe ^Cell) = StateInit;
 *   message$_ {X:Type} info:CommonMsgInfoRelaxed init:(Maybe (Either StateInit ^StateInit))
 *     body:(Either X ^X) = MessageRelaxed X;
 */

export const commonMsgInfoRelaxed = oneOf(
  cons('int_msg_info', '$0', {
    ihr_disabled: bool,
    bounce: bool,
    bounced: bool,
    src: msgAddress,
    dest: msgAddressInt,
    value: currencyCollection,
    ihr_fee: grams,
    fwd_fee: grams,
    created_lt: bigUint(64),
    created_at: uint(32),
  }),
  cons('ext_out_msg_info', '$11', { src: msgAddress, dest: msgAddressExt, created_lt: bigUint(64), created_at: uint(32) }),
);

export const stateInit = anon({
  fixed_prefix_length: maybe(uint(5)),
  special: maybe(cons('tick_tock', '$_', { tick: bool, tock: bool })),
  code: maybe(refCell),
  data: maybe(refCell),
  library: maybe(refCell),
});

/** `MessageRelaxed Any`: a message a contract sends; `body` is the body cell (inline or referenced). */
export const messageRelaxed = cons('message', '$_', {
  info: commonMsgInfoRelaxed,
  init: maybe(either(stateInit, ref(stateInit))),
  body: eitherCell,
});

export type MessageRelaxedValue = ReturnType<typeof messageRelaxed.read>;
