import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from './streaming-proxy.js';

const req = (peer: string, forwardedFor?: string) => ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientAddress (what the API names in X-Forwarded-For to the streamer)', () => {
  it('is the peer without trusted proxies, whatever the request claims', () => {
    expect(clientAddress(req('203.0.113.9', '1.1.1.1'), 0)).toBe('203.0.113.9');
  });

  it('with N trusted proxies (API_TRUST_PROXY), the address N entries from the right, as express counts them', () => {
    expect(clientAddress(req('10.0.0.2', '1.1.1.1, 198.51.100.1'), 1)).toBe('198.51.100.1');
    expect(clientAddress(req('10.0.0.2', '1.1.1.1, 198.51.100.1'), 2)).toBe('1.1.1.1');
    expect(clientAddress(req('10.0.0.2', '198.51.100.1'), 5)).toBe('198.51.100.1');
    expect(clientAddress(req('10.0.0.2'), 1)).toBe('10.0.0.2');
  });
});
