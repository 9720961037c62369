import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { parseCursor } from './cursor.js';
import { applySubscription, emptySubscription, parseEnvelope, parseSubscription, parseUnsubscribe } from './subscription.js';

const addr = new Address(0, Buffer.alloc(32, 0xab));
const raw = `0:${'AB'.repeat(32)}`;

describe('parseSubscription()', () => {
  it('normalises every address form to raw upper case and deduplicates', () => {
    const forms = [addr.toString(), addr.toString({ bounceable: false }), addr.toString({ urlSafe: false }), raw.toLowerCase()];
    const r = parseSubscription({ types: ['transactions'], addresses: forms }, 'sse', 10);
    expect(r).toEqual({ ok: true, value: { types: ['transactions'], addresses: [raw], traceHashes: [] } });
  });

  it('checks in the reference order with its SSE and WS wording', () => {
    const err = (v: unknown, t: 'sse' | 'ws' = 'sse') => {
      const r = parseSubscription(v, t, 10);
      return r.ok ? null : r.error;
    };
    expect(err({})).toBe('types are required for subscription');
    expect(err({}, 'ws')).toBe('types are required');
    expect(err({ types: ['trace_invalidated'] })).toBe('types are required for subscription');
    expect(err({ types: ['nope'], addresses: ['bad'] })).toBe('invalid event type: nope');
    expect(err({ types: ['transactions'], addresses: ['bad'] })).toBe('invalid address: bad');
    expect(err({ types: ['trace'], trace_external_hash_norms: [' '] })).toBe('trace_external_hash_norms contains empty value');
    expect(err({ types: ['transactions'], addresses: [raw], trace_external_hash_norms: ['h'] })).toBe('trace_external_hash_norms requires type "trace"');
    expect(err({ types: ['trace'] })).toBe('trace_external_hash_norms are required for trace subscription');
    expect(err({ types: ['actions'] }, 'ws')).toBe('addresses are required');
    expect(err({ types: ['transactions'], addresses: [raw], min_finality: 'x' })).toBe('invalid subscription request: unknown finality state: x');
    expect(err({ types: ['transactions'], addresses: [raw], id: 1 }, 'ws')).toBe('invalid subscribe request: id: expected a string');
    expect(err({ types: ['transactions'], addresses: Array(11).fill(raw) })).toBe('too many addresses: 11 > max 10');
  });

  it('matches keys case-insensitively and echoes the id', () => {
    const r = parseSubscription({ Types: ['trace'], TRACE_EXTERNAL_HASH_NORMS: ['a'.repeat(64)], id: 'q' }, 'ws', 10);
    expect(r).toEqual({ ok: true, value: { id: 'q', types: ['trace'], addresses: [], traceHashes: [Buffer.from('a'.repeat(64), 'hex').toString('base64')] } });
  });

  it('takes a resume cursor from resume_from or Last-Event-ID', () => {
    const r = parseSubscription({ types: ['transactions'], addresses: [raw] }, 'sse', 10, 'c12.3f10');
    expect(r.ok && r.value.resumeFrom).toEqual(parseCursor('c12.3f10'));
    expect(parseCursor('c12.3f10')).toEqual({ confirmed: { mc: 12, index: 3 }, finalized: { mc: 10, index: Infinity } });
    expect(parseCursor('c1.2c3')).toBeNull();
  });
});

describe('applySubscription()', () => {
  it('keeps omitted finality and includes, replaces action types only when non-empty (Go server semantics)', () => {
    const first = parseSubscription({ types: ['transactions'], addresses: [raw], min_finality: 'pending', include_address_book: true, action_types: ['ton_transfer'] }, 'ws', 10);
    const second = parseSubscription({ types: ['account_state_change'], addresses: [raw], action_types: [] }, 'ws', 10);
    if (!first.ok || !second.ok) throw new Error('parse');
    const s = applySubscription(applySubscription(emptySubscription(), first.value), second.value);
    expect([...s.types]).toEqual(['account_state_change']);
    expect(s.minFinality).toBe('pending');
    expect(s.includeAddressBook).toBe(true);
    expect([...s.actionTypes!]).toEqual(['ton_transfer']);
  });
});

describe('WS envelopes', () => {
  it('refuses non-objects and non-string ids; unsubscribe needs something to remove', () => {
    expect(parseEnvelope('[]')).toEqual({ ok: false, error: 'invalid request envelope: expected a JSON object' });
    expect(parseEnvelope('{"operation":"ping","id":1}')).toEqual({ ok: false, error: 'invalid request envelope: id: expected a string' });
    expect(parseUnsubscribe({ id: 'u' })).toEqual({ ok: false, id: 'u', error: 'addresses or trace_external_hash_norms are required' });
    expect(parseUnsubscribe({ addresses: [addr.toString()] })).toEqual({ ok: true, value: { addresses: [raw], traceHashes: [] } });
  });
});
