import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Addresses a metadata URI must not reach: a contract's content is written by anyone, so without this
 * check it could make the worker read loopback services (the local ClickHouse), cloud metadata
 * (169.254.169.254) or private networks. An allow-list: an address is public only if it is a plain
 * internet host, so a range nobody listed here is refused, not let through.
 */

/** Ranges ipaddr.js calls `unicast` but that hold no internet host: benchmarking (RFC 2544). */
const V4_NOT_A_HOST = [ipaddr.IPv4.parseCIDR('198.18.0.0/15')];
/** IPv6 global unicast (RFC 4291); everything outside (loopback, ::/96 and ::ffff:0:0/96, fc00::/7, fe80::/10, fec0::/10, ff00::/8, 64:ff9b::/96 ...) is refused unless decoded below. */
const V6_GLOBAL = ipaddr.IPv6.parseCIDR('2000::/3');
/** Inside 2000::/3 but not a plain host: IETF assignments with Teredo (2001::/23), documentation (2001:db8::/32, 3fff::/20), 6to4 (2002::/16, relays to an embedded IPv4). */
const V6_NOT_A_HOST = ['2001::/23', '2001:db8::/32', '3fff::/20', '2002::/16'].map((range) => ipaddr.IPv6.parseCIDR(range));
/** NAT64 well-known prefix (RFC 6052): a DNS64 network answers an IPv4-only host with it; the last 32 bits are the IPv4 address reached. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast' && !V4_NOT_A_HOST.some((range) => address.match(range));
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  if (address.isIPv4MappedAddress()) return isPublicV4(address.toIPv4Address());
  if (address.match(NAT64)) return isPublicV4(new ipaddr.IPv4(address.toByteArray().slice(12)));
  return address.match(V6_GLOBAL) && !V6_NOT_A_HOST.some((range) => address.match(range));
}

/**
 * True unless `ip` is a public internet host. One check for both ways a fetch reaches an address: an
 * IP literal in the URL (which Node connects to without a lookup) and every address a name resolves to.
 * What is not an IP address, or what ipaddr.js cannot read (1.x reads no dotted IPv4 after `::` other
 * than `::ffff:`, e.g. `::127.0.0.1`), is refused.
 */
export function isPrivateAddress(ip: string): boolean {
  try {
    const family = isIP(ip);
    if (family === 4) return !isPublicV4(ipaddr.IPv4.parse(ip));
    if (family === 6) return !isPublicV6(ipaddr.IPv6.parse(ip));
  } catch {
    // unreadable: refused below
  }
  return true;
}
