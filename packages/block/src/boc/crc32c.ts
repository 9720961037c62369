/** CRC-32C (Castagnoli), as used in the BoC trailer. Slicing-by-4 tables: ~4x a byte-at-a-time loop. */

const POLY = 0x82f63b78;
const T = new Int32Array(4 * 256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[i] = c;
}
for (let i = 0; i < 256; i++) {
  for (let t = 1; t < 4; t++) T[t * 256 + i] = (T[(t - 1) * 256 + i] >>> 8) ^ T[T[(t - 1) * 256 + i] & 0xff];
}

export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = ~0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    crc ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    crc = T[768 + (crc & 0xff)] ^ T[512 + ((crc >>> 8) & 0xff)] ^ T[256 + ((crc >>> 16) & 0xff)] ^ T[crc >>> 24];
  }
  for (; i < end; i++) crc = T[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
