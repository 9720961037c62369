import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, isIPv6 } from 'node:net';
import { hashApiKey } from '@tonstream/store';
import { type KeyVerifier, UNKNOWN_KEY_MESSAGE } from './api-keys.js';

/** What one connection may do. `keyHash`: the API key it was admitted with (checked again for revocation). */
export type ConnectionLimits = { key: string; maxConnections: number; maxAddresses: number; keyHash?: string };

export type LimitDefaults = {
  /** Addresses per subscription. */
  maxAddresses: number;
  /** Connections per API key; -1 unlimited. */
  maxConnectionsPerKey: number;
  /** Connections per client address without a key (or with one Redis cannot verify); -1 unlimited. */
  maxConnectionsAnonymous: number;
  /** Whether `X-Limiting-Key` and its limits are taken from the request (only behind a gateway that sets them). */
  trustGatewayHeaders: boolean;
  /**
   * Peers whose `X-Forwarded-For` names the client (the API passing /api/streaming on): addresses and
   * CIDR ranges. Others are the client themselves.
   */
  trustedProxies?: readonly string[];
};

export type Admission = { ok: true; limits: ConnectionLimits } | { ok: false; status: 401; error: string };

/** `::ffff:a.b.c.d` (an IPv4 peer of a dual-stack socket) as `a.b.c.d`. */
const plainAddress = (a: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a) ? a.slice(7) : a);

/** A BlockList of addresses and `address/prefix` ranges (validated by the config). */
export function addressList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const [address, prefix] = e.split('/');
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/**
 * The client a connection counts against: its peer, or, when the peer is a trusted proxy, the
 * address that proxy names last in X-Forwarded-For (the one it saw; earlier entries are the client's word).
 */
export function clientAddress(req: IncomingMessage, trusted: BlockList | null): string {
  const peer = plainAddress(req.socket.remoteAddress ?? '');
  if (!trusted || !isIP(peer) || !trusted.check(peer, isIPv6(peer) ? 'ipv6' : 'ipv4')) return peer;
  const named = header(req, 'x-forwarded-for')?.split(',').map((s) => s.trim()).filter(Boolean).pop();
  return named ? plainAddress(named) : peer;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** -1 (unlimited) for a missing or unreadable value: the reference's advice for quirk 7. */
function limit(text: string | undefined): number {
  if (text === undefined || !/^-?\d{1,9}$/.test(text.trim())) return -1;
  return Number(text.trim());
}

/** The key as clients send it (reference §2): `X-API-Key`, else `api_key` (walletkit's WebSocket), else `token` (TonAPI). */
export function requestApiKey(req: IncomingMessage, url: URL): string | undefined {
  for (const v of [header(req, 'x-api-key'), url.searchParams.get('api_key'), url.searchParams.get('token')]) if (v) return v;
  return undefined;
}

/**
 * Who a connection counts against and under which limits. Behind a trusted gateway its headers decide
 * (reference §2). Otherwise a key must be one the API's key store holds (unknown or revoked: 401, as
 * the API answers) and counts per key; without a key, or with one Redis cannot verify right now, the
 * connection counts per client address under the anonymous limit.
 */
export async function admitConnection(req: IncomingMessage, url: URL, d: LimitDefaults, keys: KeyVerifier | null): Promise<Admission> {
  const gatewayKey = d.trustGatewayHeaders ? header(req, 'x-limiting-key') : undefined;
  if (gatewayKey !== undefined && gatewayKey !== '') {
    const maxAddr = limit(header(req, 'x-max-subscribed-addr'));
    return { ok: true, limits: { key: `gw:${gatewayKey}`, maxConnections: limit(header(req, 'x-max-parallel-connections')), maxAddresses: maxAddr < 0 ? d.maxAddresses : Math.min(maxAddr, d.maxAddresses) } };
  }
  const anonymous: Admission = { ok: true, limits: { key: `ip:${clientAddress(req, d.trustedProxies?.length ? addressList(d.trustedProxies) : null)}`, maxConnections: d.maxConnectionsAnonymous, maxAddresses: d.maxAddresses } };
  const apiKey = requestApiKey(req, url);
  if (apiKey === undefined || keys === null) return anonymous;
  const keyHash = hashApiKey(apiKey);
  const verdict = await keys.check(keyHash);
  if (verdict === 'unknown') return { ok: false, status: 401, error: UNKNOWN_KEY_MESSAGE };
  if (verdict === 'unverified') return anonymous;
  return { ok: true, limits: { key: `key:${keyHash}`, maxConnections: d.maxConnectionsPerKey, maxAddresses: d.maxAddresses, keyHash } };
}
