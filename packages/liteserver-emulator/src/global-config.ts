/**
 * TON global config files (the `global.config.json` every TON client loads), limited to what
 * liteserver clients read: `liteservers[]` with the IPv4 as a signed int32, the port and the
 * ed25519 key. `dht` and `validator` are present in minimal form so strict loaders accept the file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { TonstreamError } from '@tonstream/errors';

/** A liteserver as clients address it. */
export type LiteServerAddress = { host: string; port: number; publicKey: Buffer };

export type GlobalConfigOptions = {
  /** Masterchain zero state hashes, base64. @default 32 zero bytes each */
  zeroState?: { rootHash: string; fileHash: string };
  /** Marks the file as the local network's (LOCALNET_MARKER). @default false */
  localnet?: boolean;
};

/**
 * Top-level field of a global config the local network wrote. TON clients ignore fields they do
 * not know; tonstream's fetcher reads it: a localnet can be started afresh (`--reset`), so there a
 * checkpoint of another chain means a reset, not a wrong network.
 */
export const LOCALNET_MARKER = 'tonstream_localnet';

const ZERO_HASH = Buffer.alloc(32).toString('base64');
/** The masterchain shard id, -2^63, which a JS number cannot hold; spliced into the text. */
const MASTERCHAIN_SHARD_PLACEHOLDER = '"__masterchain_shard__"';
const MASTERCHAIN_SHARD = '-9223372036854775808';

export class GlobalConfigError extends TonstreamError {
  readonly code = 'GLOBAL_CONFIG_INVALID';
}

export function writeGlobalConfig(
  path: string,
  servers: readonly { host: string; port: number; publicKey: Uint8Array }[],
  options: GlobalConfigOptions = {},
): void {
  const zero = options.zeroState ?? { rootHash: ZERO_HASH, fileHash: ZERO_HASH };
  const block = { workchain: -1, shard: MASTERCHAIN_SHARD_PLACEHOLDER, seqno: 0, root_hash: zero.rootHash, file_hash: zero.fileHash };
  const config = {
    '@type': 'config.global',
    ...(options.localnet ? { [LOCALNET_MARKER]: true } : {}),
    dht: { '@type': 'dht.config.global', k: 6, a: 3, static_nodes: { '@type': 'dht.nodes', nodes: [] } },
    liteservers: servers.map((s, i) => {
      if (s.publicKey.length !== 32) throw new GlobalConfigError(`servers[${i}].publicKey must be 32 bytes, got ${s.publicKey.length}`);
      if (!Number.isInteger(s.port) || s.port <= 0 || s.port > 65535) throw new GlobalConfigError(`servers[${i}].port ${s.port} is not a TCP port`);
      return { ip: ipv4ToInt32(s.host), port: s.port, id: { '@type': 'pub.ed25519', key: Buffer.from(s.publicKey).toString('base64') } };
    }),
    validator: { '@type': 'validator.config.global', zero_state: block, init_block: block, hardforks: [] },
  };
  const text = JSON.stringify(config, null, 2).replaceAll(JSON.stringify(MASTERCHAIN_SHARD_PLACEHOLDER), MASTERCHAIN_SHARD);
  writeFileSync(path, text + '\n');
}

/** Liteservers of a global config given as a file path, JSON text or parsed object. */
export function readGlobalConfig(pathOrJson: string | object): LiteServerAddress[] {
  const config = typeof pathOrJson === 'string' ? parseGlobalConfig(pathOrJson) : pathOrJson;
  const list = (config as { liteservers?: unknown })?.liteservers;
  if (!Array.isArray(list)) throw new GlobalConfigError('global config has no liteservers array');
  return list.map((entry: { ip?: unknown; port?: unknown; id?: { '@type'?: unknown; key?: unknown } }, i) => {
    const where = `liteservers[${i}]`;
    if (typeof entry?.ip !== 'number' || !Number.isInteger(entry.ip)) throw new GlobalConfigError(`${where}.ip must be an integer`);
    if (typeof entry.port !== 'number' || !Number.isInteger(entry.port)) throw new GlobalConfigError(`${where}.port must be an integer`);
    if (entry.id?.['@type'] !== 'pub.ed25519') throw new GlobalConfigError(`${where}.id.@type must be pub.ed25519, got ${String(entry.id?.['@type'])}`);
    const publicKey = typeof entry.id.key === 'string' ? Buffer.from(entry.id.key, 'base64') : Buffer.alloc(0);
    if (publicKey.length !== 32) throw new GlobalConfigError(`${where}.id.key must be 32 bytes of base64`);
    return { host: int32ToIpv4(entry.ip), port: entry.port, publicKey };
  });
}

function parseGlobalConfig(pathOrText: string): unknown {
  const text = pathOrText.trimStart().startsWith('{') ? pathOrText : readFileSync(pathOrText, 'utf-8');
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new GlobalConfigError(`global config is not JSON: ${(cause as Error).message}`, { cause });
  }
}

/** Whether a global config (file path, JSON text or parsed object) carries LOCALNET_MARKER. */
export function isLocalnetGlobalConfig(pathOrJson: string | object): boolean {
  const config = typeof pathOrJson === 'string' ? parseGlobalConfig(pathOrJson) : pathOrJson;
  return (config as Record<string, unknown>)?.[LOCALNET_MARKER] === true;
}

/** IPv4 dotted quad to the signed int32 global configs use (big-endian octets). */
export function ipv4ToInt32(host: string): number {
  if (!isIPv4(host)) throw new GlobalConfigError(`global configs hold IPv4 addresses only, got ${JSON.stringify(host)}`);
  return host.split('.').reduce((acc, octet) => (acc << 8) | Number(octet), 0) | 0;
}

/** Inverse of ipv4ToInt32; accepts the unsigned form some configs use. */
export function int32ToIpv4(ip: number): string {
  const u = ip >>> 0;
  return [u >>> 24, (u >>> 16) & 0xff, (u >>> 8) & 0xff, u & 0xff].join('.');
}
