import type { Cell } from '@ton/core';
import { Address, beginCell, internal, storeMessageRelaxed } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { classifyTrace } from './classify.js';
import { addr, buildTrace } from './test-support/trace-builder.js';

/*
 * A wallet external that failed before sending anything: toncenter's unknown-trace path turns each
 * message the wallet meant to send into a "ghost" block (is_ghost_block). A ghost's action lists the
 * sender (its own account and the source) but not the destination, which the message never reached.
 */

const wallet = addr('wallet v3');
const destination = addr('destination');

/** A wallet v3 external: signature, subwallet id, valid_until, seqno, then (mode, ^message) pairs. */
function v3External(): Cell {
  const message = beginCell().store(storeMessageRelaxed(internal({ to: Address.parse(destination), value: 1_500_000_000n, bounce: true }))).endCell();
  return beginCell().storeBuffer(Buffer.alloc(64)).storeUint(698983191, 32).storeUint(1_800_000_000, 32).storeUint(42, 32).storeUint(3, 8).storeRef(message).endCell();
}

describe('a failed wallet external that meant to send TON', () => {
  it('becomes a failed ton_transfer listing only the wallet', () => {
    const { trace, lookup } = buildTrace({ account: wallet, body: v3External(), aborted: true, exitCode: 33 });
    const { actions } = classifyTrace(trace, lookup);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({
      type: 'ton_transfer',
      success: false,
      details: { source: wallet, destination, value: '1500000000', comment: null, encrypted: false },
      transactions: [trace.transactions[0].hash],
    });
    expect(actions[0].accounts).toEqual([wallet]);
  });
});
