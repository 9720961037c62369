import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GlobalConfigError, int32ToIpv4, ipv4ToInt32, isLocalnetGlobalConfig, LOCALNET_MARKER, readGlobalConfig, writeGlobalConfig } from './global-config.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'global-config-test-'));
  dirs.push(dir);
  return join(dir, 'global.config.json');
}

describe('global config', () => {
  it('writes liteservers as TON clients expect and reads them back', () => {
    const path = tempPath();
    const servers = [
      { host: '127.0.0.1', port: 4924, publicKey: Buffer.alloc(32, 1) },
      { host: '192.168.10.20', port: 65535, publicKey: Buffer.alloc(32, 2) },
    ];
    writeGlobalConfig(path, servers);
    const text = readFileSync(path, 'utf-8');
    const json = JSON.parse(text);
    expect(json.liteservers[0]).toEqual({ ip: 2130706433, port: 4924, id: { '@type': 'pub.ed25519', key: Buffer.alloc(32, 1).toString('base64') } });
    expect(json.liteservers[1].ip).toBe(-1062729196); // signed, as in mainnet configs
    expect(text).toContain('"shard": -9223372036854775808');
    expect(json.validator['@type']).toBe('validator.config.global');
    expect(readGlobalConfig(path)).toEqual(servers);
    expect(readGlobalConfig(text)).toEqual(servers);
    expect(readGlobalConfig(json)).toEqual(servers);
  });

  it('marks the local network\'s config with a top-level field only when asked', () => {
    const plain = tempPath();
    const local = tempPath();
    const servers = [{ host: '127.0.0.1', port: 4924, publicKey: Buffer.alloc(32, 1) }];
    writeGlobalConfig(plain, servers);
    writeGlobalConfig(local, servers, { localnet: true });
    expect(JSON.parse(readFileSync(local, 'utf-8'))[LOCALNET_MARKER]).toBe(true);
    expect(isLocalnetGlobalConfig(local)).toBe(true);
    expect(isLocalnetGlobalConfig(plain)).toBe(false);
    expect(isLocalnetGlobalConfig({ [LOCALNET_MARKER]: 'yes' })).toBe(false);
    expect(readGlobalConfig(local)).toEqual(servers);
  });

  it('converts IPv4 both ways, accepting unsigned ints', () => {
    expect(ipv4ToInt32('255.255.255.255')).toBe(-1);
    expect(int32ToIpv4(-1)).toBe('255.255.255.255');
    expect(int32ToIpv4(0xc0a80a14)).toBe('192.168.10.20');
    expect(() => ipv4ToInt32('localhost')).toThrow(GlobalConfigError);
  });

  it('names the bad entry', () => {
    expect(() => readGlobalConfig({ liteservers: [{ ip: 1, port: 2, id: { '@type': 'pub.ed25519', key: 'AAAA' } }] })).toThrow('liteservers[0].id.key must be 32 bytes of base64');
    expect(() => readGlobalConfig('{"dht": {}}')).toThrow('global config has no liteservers array');
  });
});
