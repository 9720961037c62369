import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './private-address.js';

describe('isPrivateAddress()', () => {
  it('flags loopback, private, link-local, CGNAT and multicast addresses, v4 and v6', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });
  it('lets public addresses through', () => {
    for (const ip of ['1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(ip), ip).toBe(false);
  });
});
