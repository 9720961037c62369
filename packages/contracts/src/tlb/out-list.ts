import type { Cell } from '@ton/core';
import { type Codec, spendCell, type TlbJson } from './codec.js';
import { currencyCollection } from './currency.js';
import { messageRelaxed } from './message.js';
import { bits, cons, oneOf, ref, refCell, uint } from './primitives.js';

/*
 *   action_send_msg#0ec3c86d mode:(## 8) out_msg:^(MessageRelaxed Any) = OutAction;
 *   action_set_code#ad4de08e new_code:^Cell = OutAction;
 *   action_reserve_currency#36e6b809 mode:(## 8) currency:CurrencyCollection = OutAction;
 *   libref_hash$0 lib_hash:bits256 = LibRef;
 *   libref_ref$1 library:^Cell = LibRef;
 *   action_change_library#26fa1dd4 mode:(## 7) libref:LibRef = OutAction;
 *   out_list_empty$_ = OutList 0;
 *   out_list$_ {n:#} prev:^(OutList n) action:OutAction = OutList (n + 1);
 */

export const outAction = oneOf(
  cons('action_send_msg', '#0ec3c86d', { mode: uint(8), out_msg: ref(messageRelaxed) }),
  cons('action_set_code', '#ad4de08e', { new_code: refCell }),
  cons('action_reserve_currency', '#36e6b809', { mode: uint(8), currency: currencyCollection }),
  cons('action_change_library', '#26fa1dd4', {
    mode: uint(7),
    libref: oneOf(cons('libref_hash', '$0', { lib_hash: bits(256) }), cons('libref_ref', '$1', { library: refCell })),
  }),
);

export type OutAction = ReturnType<typeof outAction.read>;

/**
 * Length of an OutList: the cells along first references down to the empty one. OutList carries
 * its length in the type, not in the bits; ton-marker counts it the same way before parsing.
 */
function listLength(cell: Cell): number {
  let n = 0;
  for (let c = cell; c.refs.length > 0 && !c.isExotic; c = c.refs[0]) n++;
  return n;
}

/** `^(OutList n)`: the actions in the order they run (the deepest first). */
export const outListRef: Codec<OutAction[]> = {
  read(s) {
    const actions: OutAction[] = [];
    let cell = s.loadRef();
    for (let n = listLength(cell); n > 0; n--) {
      const cs = cell.beginParse();
      const prev = cs.loadRef();
      actions.push(outAction.read(cs));
      cell = prev;
    }
    return actions.reverse();
  },
  print(s, budget) {
    spendCell(budget);
    const cell = s.loadRef();
    const printList = (c: Cell, n: number): TlbJson => {
      if (n === 0) return { '@type': 'out_list_empty' };
      spendCell(budget);
      const cs = c.beginParse();
      const prev = printList(cs.loadRef(), n - 1);
      return { '@type': 'out_list', prev, action: outAction.print(cs, budget) };
    };
    return printList(cell, listLength(cell));
  },
};
