import { describe, expect, it } from 'vitest';
import { requestApiKey } from './api-key.js';

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
