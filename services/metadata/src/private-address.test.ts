import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './private-address.js';

// Expected classes from the IANA special-purpose address registries (IPv4 and IPv6), not from the code.
describe('isPrivateAddress()', () => {
  it('refuses loopback, private, link-local, CGNAT, unspecified, broadcast, reserved and multicast IPv4', () => {
    for (const ip of ['127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '0.0.0.0', '0.1.2.3', '255.255.255.255', '224.0.0.1', '239.255.255.250', '240.0.0.1', '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9']) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });
  it('refuses the IPv6 ranges that are no internet host, and IPv4 embedded in every spelling', () => {
    for (const ip of [
      '::1', '::', 'fd00::1', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'feff::1', 'ff02::1', 'ff0e::1', '100::1', '2001:db8::1', '3fff::1',
      '::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '::127.0.0.1', '::ffff:0:7f00:1',
      '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::808:808',
      '2002:7f00:1::1', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001::1',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });
  it('lets public hosts through, also an IPv4-mapped or NAT64 (DNS64) spelling of one', () => {
    for (const ip of ['1.1.1.1', '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.128.0.1', '198.20.0.1', '2606:4700::1111', '2a00:1450:4001:81d::200e', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(isPrivateAddress(ip), ip).toBe(false);
    }
  });
  it('refuses what is not an IP address', () => {
    for (const text of ['', 'localhost', 'example.org', '0x7f.1', '2130706433', '[::1]']) expect(isPrivateAddress(text), text).toBe(true);
  });
});
