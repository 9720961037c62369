import type { IncomingMessage } from 'node:http';
import { loadConfig } from '@tonstream/runtime';
import { describe, expect, it } from 'vitest';
import { STREAMER_CONFIG } from './config.js';
import { addressList, clientAddress } from './limits.js';

const req = (peer: string, forwardedFor?: string) => ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  const trusted = addressList(['127.0.0.1', '::1', '172.16.0.0/12']);

  it('is the peer, whatever it claims, unless the peer is a trusted proxy', () => {
    expect(clientAddress(req('203.0.113.9', '198.51.100.1'), trusted)).toBe('203.0.113.9');
    expect(clientAddress(req('203.0.113.9', '198.51.100.1'), null)).toBe('203.0.113.9');
    expect(clientAddress(req('127.0.0.1', '198.51.100.1'), null)).toBe('127.0.0.1');
  });

  it('behind a trusted proxy (address, IPv4-mapped form, range) is the last address it names', () => {
    expect(clientAddress(req('127.0.0.1', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddress(req('::ffff:127.0.0.1', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddress(req('::1', '2001:db8::5'), trusted)).toBe('2001:db8::5');
    expect(clientAddress(req('172.20.3.4', '10.9.8.7'), trusted)).toBe('10.9.8.7');
    // Earlier entries are the client's own word: only the one the proxy added counts.
    expect(clientAddress(req('127.0.0.1', '1.1.1.1, 198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddress(req('127.0.0.1', '::ffff:198.51.100.1'), trusted)).toBe('198.51.100.1');
    // A trusted proxy that names no one: the proxy is the client.
    expect(clientAddress(req('127.0.0.1'), trusted)).toBe('127.0.0.1');
  });

  it('STREAMER_TRUSTED_PROXIES: loopback by default; addresses and ranges, anything else refused naming it', () => {
    expect(loadConfig(STREAMER_CONFIG, {}).trustedProxies).toEqual(['127.0.0.1', '::1']);
    expect(loadConfig(STREAMER_CONFIG, { STREAMER_TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8,192.0.2.7' }).trustedProxies).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
    for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.1/8/1', 'fd00::/129']) {
      expect(() => loadConfig(STREAMER_CONFIG, { STREAMER_TRUSTED_PROXIES: bad })).toThrow(/STREAMER_TRUSTED_PROXIES/);
    }
  });
});
