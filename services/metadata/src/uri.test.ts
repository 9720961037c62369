import { describe, expect, it } from 'vitest';
import { fetchUrl } from './uri.js';

describe('fetchUrl()', () => {
  const gateway = 'http://gw.local:8080/ipfs/';
  it('maps ipfs:// (with or without the ipfs/ prefix) onto the gateway, keeping the path', () => {
    expect(fetchUrl('ipfs://bafyCID/meta/1.json', gateway)?.href).toBe('http://gw.local:8080/ipfs/bafyCID/meta/1.json');
    expect(fetchUrl('ipfs://ipfs/QmCID', gateway)?.href).toBe('http://gw.local:8080/ipfs/QmCID');
    expect(fetchUrl('ipfs://QmCID', 'https://gw.example/ipfs')?.href).toBe('https://gw.example/ipfs/QmCID');
    expect(fetchUrl('ipfs://QmCID/a/../b.json?x=1', gateway)?.href).toBe('http://gw.local:8080/ipfs/QmCID/b.json?x=1');
  });
  it('never lets an ipfs:// URI leave <gateway>/<cid>', () => {
    for (const bad of [
      'ipfs://http://127.0.0.1:8123/?query=SELECT%201', 'ipfs://ipfs/http://127.0.0.1:8123/', 'ipfs://https:/evil.example/x', 'ipfs:////evil.example/x',
      'ipfs://\\\\evil.example/x', 'ipfs://Qm@evil.example/x', 'ipfs://QmCID:80/x', 'ipfs://QmCID/../../admin', 'ipfs://QmCID/..\\..\\admin',
      'ipfs://QmCID/%2e%2e/%2E%2e/admin', 'ipfs://../admin', 'ipfs://', 'ipfs://ipfs/', 'ipfs:QmCID',
    ]) {
      expect(fetchUrl(bad, gateway), bad).toBeNull();
    }
  });
  it('keeps http(s) URIs (trimmed) and refuses every other scheme or text', () => {
    expect(fetchUrl(' https://example.org/a.json\n', gateway)?.href).toBe('https://example.org/a.json');
    for (const bad of ['data:application/json,{}', 'file:///etc/passwd', 'tonstorage://bag/x', 'example.org/a.json', '']) expect(fetchUrl(bad, gateway), bad).toBeNull();
  });
});
