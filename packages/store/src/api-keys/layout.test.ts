import { describe, expect, it } from 'vitest';
import { apiKeysKey, generateApiKey, hashApiKey } from './layout.js';

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

describe('apiKeysKey()', () => {
  it('is the one hash under the prefix', () => {
    expect(apiKeysKey('tonstream:api:')).toBe('tonstream:api:keys');
  });
});
