import { describe, expect, it } from 'vitest';
import { MISSING_NODE_WARNING, traceTree } from './tree.js';

const node = (tx: string, parent: string | null, outMsgs: number) => ({ tx_hash: tx, account: `0:${'A'.repeat(64)}`, lt: '1', in_msg_hash: `in-${tx}`, parent, out_msgs: outMsgs });

describe('traceTree()', () => {
  it('draws toncenter\'s TraceNode: [] for a sender of nothing, null when none of its messages was delivered in the trace', () => {
    const tree = traceTree([node('r', null, 2), node('a', 'r', 0), node('b', 'r', 1)]);
    expect(tree).toEqual({
      trace: { tx_hash: 'r', in_msg_hash: 'in-r', children: [{ tx_hash: 'a', in_msg_hash: 'in-a', children: [] }, { tx_hash: 'b', in_msg_hash: 'in-b', children: null }] },
      transactions_order: ['r', 'a', 'b'],
    });
  });

  it('a node whose parent is not in the trace makes a second root: the first root is drawn, with toncenter\'s warning', () => {
    const tree = traceTree([{ ...node('r', null, 0), in_msg_hash: null }, node('x', 'gone', 0)]);
    expect(tree.trace).toEqual({ tx_hash: 'r', children: [] });
    expect(tree.warning).toBe(MISSING_NODE_WARNING);
  });
});
