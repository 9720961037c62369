import { Address, beginCell, Cell, external, internal, storeMessage, storeMessageRelaxed } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodePendingExternal, pendingExternal, PendingExternalError } from './pending-external.js';

const to = Address.parseRaw(`0:${'ab'.repeat(32)}`);

describe('pendingExternal()', () => {
  it('carries the hash @ton/core computes and the TEP-467 hash (body moved to a reference)', () => {
    const body = beginCell().storeUint(7, 32).endCell();
    const cell = beginCell().store(storeMessage(external({ to, body }))).endCell();
    const norm = beginCell().store(storeMessage(external({ to, body }), { forceRef: true })).endCell();
    const v = pendingExternal(cell.toBoc(), 1234, 'api');
    expect(v).toMatchObject({ hash: cell.hash().toString('base64'), hash_norm: norm.hash().toString('base64'), received_at: 1234, source: 'api', destination: `0:${'AB'.repeat(32)}` });
    expect(Cell.fromBase64(v.boc).hash().equals(cell.hash())).toBe(true);
    expect(decodePendingExternal(JSON.stringify(v))).toMatchObject({ boc: v.boc, hash_norm: v.hash_norm, received_at: 1234 });
  });

  it('refuses internal messages and garbage, naming the problem', () => {
    const msg = beginCell().store(storeMessageRelaxed(internal({ to, value: 1n }))).endCell().toBoc();
    expect(() => pendingExternal(msg)).toThrow(PendingExternalError);
    expect(() => pendingExternal(Buffer.from('xx'))).toThrow(/not a message BoC/);
    expect(() => decodePendingExternal('{"boc":1}')).toThrow(/boc/);
    expect(() => decodePendingExternal('nope')).toThrow(/not JSON/);
  });
});
