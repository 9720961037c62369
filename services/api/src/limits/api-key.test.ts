import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, requestApiKey } from './api-key.js';

describe('hashApiKey()', () => {
  it('is sha256 in lowercase hex (FIPS 180-2 test vector "abc")', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('generateApiKey()', () => {
  it('gives 64 hex characters, different each time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('requestApiKey()', () => {
  const req = (headers: Record<string, string | string[]>, query: Record<string, unknown>) => ({ headers, query }) as Parameters<typeof requestApiKey>[0];
  it('reads X-API-Key, else api_key; the header wins', () => {
    expect(requestApiKey(req({ 'x-api-key': 'h' }, {}))).toBe('h');
    expect(requestApiKey(req({}, { api_key: 'q' }))).toBe('q');
    expect(requestApiKey(req({ 'x-api-key': 'h' }, { api_key: 'q' }))).toBe('h');
  });
  it('treats empty values as absent and takes the last of repeated ones', () => {
    expect(requestApiKey(req({ 'x-api-key': '' }, { api_key: 'q' }))).toBe('q');
    expect(requestApiKey(req({}, { api_key: '' }))).toBeUndefined();
    expect(requestApiKey(req({}, { api_key: ['a', 'b', ''] }))).toBe('b');
    expect(requestApiKey(req({}, {}))).toBeUndefined();
  });
  it('ignores an api_key that is not a string (qs objects)', () => {
    expect(requestApiKey(req({}, { api_key: { a: 'x' } }))).toBeUndefined();
  });
});
