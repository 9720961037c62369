import { crc32c } from './crc32c.js';

/** A cell to serialize: `data` holds `bits` bits, MSB first; `refs` are indices into the same list. */
export type RawCell = { data: Uint8Array; bits: number; refs: number[]; special: number; levelMask: number };

/**
 * Serializes cells (already in topological order: every ref points to a later index) as a
 * `serialized_boc#b5ee9c72` with a CRC32-C trailer and no index.
 */
export function writeBoc(cells: RawCell[], roots: number[] = [0]): Uint8Array {
  const count = cells.length;
  const size = bytesFor(count);
  let dataSize = 0;
  for (const c of cells) dataSize += 2 + ((c.bits + 7) >> 3) + c.refs.length * size;
  const offBytes = bytesFor(dataSize);
  const headerSize = 4 + 1 + 1 + 3 * size + offBytes + roots.length * size;
  const out = new Uint8Array(headerSize + dataSize + 4);
  let p = 0;
  const put = (v: number, n: number) => {
    for (let k = n - 1; k >= 0; k--) out[p++] = Math.floor(v / 2 ** (8 * k)) & 0xff;
  };
  put(0xb5ee9c72, 4);
  out[p++] = 0x40 | size; // has_crc32c, no index, no cache bits
  out[p++] = offBytes;
  put(count, size);
  put(roots.length, size);
  put(0, size);
  put(dataSize, offBytes);
  for (const r of roots) put(r, size);
  for (let i = 0; i < count; i++) {
    const c = cells[i];
    const fullBytes = c.bits >> 3;
    const rest = c.bits & 7;
    out[p++] = c.refs.length + (c.special ? 8 : 0) + 32 * c.levelMask;
    out[p++] = fullBytes * 2 + (rest ? 1 : 0);
    out.set(c.data.subarray(0, fullBytes), p);
    p += fullBytes;
    if (rest) out[p++] = (c.data[fullBytes] & (0xff << (8 - rest))) | (0x80 >> rest);
    for (const r of c.refs) {
      if (r <= i || r >= count) throw new Error(`writeBoc: cell ${i} refers to ${r}; cells must be in topological order`);
      put(r, size);
    }
  }
  const crc = crc32c(out, 0, p);
  out[p++] = crc & 0xff;
  out[p++] = (crc >>> 8) & 0xff;
  out[p++] = (crc >>> 16) & 0xff;
  out[p++] = crc >>> 24;
  return out;
}

function bytesFor(n: number): number {
  let b = 1;
  while (n >= 2 ** (8 * b)) b++;
  return b;
}
