import { describe, expect, it } from 'vitest';
import { Block } from './block.js';
import { actionId } from './serialize.js';
import { EventNode } from './tree.js';
import type { TransactionRecord } from '@tonstream/records';

function nodeWithMessage(hash: string): EventNode {
  const tx = { hash: 'tx', lt: '2', now: 0, account: '0:00', description: { type: 'ord' }, out_msgs: [] } as unknown as TransactionRecord;
  const msg = { hash, created_lt: '1', source: null, destination: null, message_content: { hash: '', body: '' } } as unknown as TransactionRecord['in_msg'];
  return new EventNode('in', tx, msg, hash);
}

describe('actionId()', () => {
  // Test vectors of toncenter's own test cases (docs/traces-and-actions.md §3.5).
  it('is base64(sha256(msg hash + internal type)) of the earliest message', () => {
    expect(actionId(new Block('ton_transfer', [nodeWithMessage('Cn59JAl38ihSdaGdBxcnJkUHm+aWCaPY2KcJmxo4y1Q=')]))).toBe(
      '2w63ODTcF5Jcx0ff5OOJKZ9kMhn5BzeYKr3R+OLEZMU=',
    );
    expect(actionId(new Block('jetton_transfer', [nodeWithMessage('YksAajqH8AB268bv0tUbdgjKA78BafRVlPkO1p6BGNk=')]))).toBe(
      'hgw2qhnjl1iG5gpn5K+DInamGzeFF6/yHCvtg5i5dus=',
    );
  });
});
