import { describe, expect, it } from 'vitest';
import { isUnlimitedPath, refusalBody, retryAfterSeconds } from './refusal.js';

describe('refusalBody()', () => {
  it('answers v2 in its envelope and v3 as {error} (toncenter §1.2 texts)', () => {
    expect(refusalBody('/api/v2', 429, 'Ratelimit exceeded')).toEqual({ ok: false, error: 'Ratelimit exceeded', code: 429 });
    expect(refusalBody('/api/v3', 401, 'API key does not exist')).toEqual({ error: 'API key does not exist' });
  });
});

describe('retryAfterSeconds()', () => {
  it('rounds up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});

describe('isUnlimitedPath()', () => {
  it('spares health and docs files, not endpoints', () => {
    for (const p of ['/healthcheck', '/openapi.json', '/index.html', '/swagger-ui.css', '/swagger-initializer.js']) expect(isUnlimitedPath(p), p).toBe(true);
    for (const p of ['/blocks', '/jsonRPC', '/getAddressInformation', '/', '/masterchainInfo']) expect(isUnlimitedPath(p), p).toBe(false);
  });
});
