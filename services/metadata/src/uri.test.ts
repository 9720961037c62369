import { describe, expect, it } from 'vitest';
import { fetchUrl } from './uri.js';

describe('fetchUrl()', () => {
  const gateway = 'http://gw.local:8080/ipfs/';
  it('maps ipfs:// (with or without the ipfs/ prefix) onto the gateway, keeping the path', () => {
    expect(fetchUrl('ipfs://bafyCID/meta/1.json', gateway)?.href).toBe('http://gw.local:8080/ipfs/bafyCID/meta/1.json');
    expect(fetchUrl('ipfs://ipfs/QmCID', gateway)?.href).toBe('http://gw.local:8080/ipfs/QmCID');
    expect(fetchUrl('ipfs://QmCID', 'https://gw.example/ipfs')?.href).toBe('https://gw.example/ipfs/QmCID');
  });
  it('keeps http(s) URIs (trimmed) and refuses every other scheme or text', () => {
    expect(fetchUrl(' https://example.org/a.json\n', gateway)?.href).toBe('https://example.org/a.json');
    for (const bad of ['data:application/json,{}', 'file:///etc/passwd', 'tonstorage://bag/x', 'example.org/a.json', '']) expect(fetchUrl(bad, gateway), bad).toBeNull();
  });
});
