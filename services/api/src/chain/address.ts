/**
 * TON account addresses at the API edge: raw `wc:hex` and user-friendly (base64 / base64url of
 * flags, workchain, hash and CRC16-XModem; ton-core's `Address` layout). Pure functions, no I/O.
 */

/** A parsed address: workchain and the 32-byte account id. */
export type AccountAddress = { workchain: number; hash: Uint8Array };

const RAW = /^(-?\d{1,3}):([0-9a-fA-F]{64})$/;
const FRIENDLY = /^[A-Za-z0-9+/_-]{48}$/;
const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TEST_ONLY = 0x80;

/** CRC16-XModem (polynomial 0x1021, init 0), the checksum of user-friendly addresses. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** Parses a raw or user-friendly address; null when it is neither (bad checksum, flags or length included). */
export function parseAddress(text: string): AccountAddress | null {
  const raw = RAW.exec(text);
  if (raw) {
    const workchain = Number(raw[1]);
    if (workchain < -128 || workchain > 127) return null;
    return { workchain, hash: Buffer.from(raw[2], 'hex') };
  }
  if (!FRIENDLY.test(text)) return null;
  // Either alphabet: toncenter retries `+`/`/` as `-`/`_`; the two never conflict within one string.
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 36) return null;
  const flags = bytes[0] & ~TEST_ONLY;
  if (flags !== BOUNCEABLE && flags !== NON_BOUNCEABLE) return null;
  if (crc16(bytes.subarray(0, 34)) !== bytes.readUInt16BE(34)) return null;
  return { workchain: bytes.readInt8(1), hash: bytes.subarray(2, 34) };
}

/** `wc:HEX` with the hash in upper case, the form every v3 response uses. */
export function rawAddress(a: AccountAddress): string {
  return `${a.workchain}:${Buffer.from(a.hash).toString('hex').toUpperCase()}`;
}

/** The user-friendly form (base64url, 48 characters): `EQ…`/`UQ…` on mainnet, `kQ…`/`0Q…` test-only. */
export function friendlyAddress(a: AccountAddress, options: { bounceable: boolean; testOnly: boolean }): string {
  const bytes = Buffer.alloc(36);
  bytes[0] = (options.bounceable ? BOUNCEABLE : NON_BOUNCEABLE) | (options.testOnly ? TEST_ONLY : 0);
  bytes.writeInt8(a.workchain, 1);
  bytes.set(a.hash, 2);
  bytes.writeUInt16BE(crc16(bytes.subarray(0, 34)), 34);
  return bytes.toString('base64url');
}
