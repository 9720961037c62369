import { CellTable, ORDINARY, popcount } from './cells.js';
import { crc32c } from './crc32c.js';
import { BocError } from './errors.js';

const MAGIC_GENERIC = 0xb5ee9c72;
const MAGIC_INDEXED = 0x68ff65f3;
const MAGIC_INDEXED_CRC = 0xacc3a728;

/**
 * Deserializes a bag of cells and computes every cell's representation hash and depth.
 * Cell data is not copied: the table points into `bytes`, which must not be modified afterwards.
 */
export function parseBoc(bytes: Uint8Array): CellTable {
  const r = new HeaderReader(bytes);
  const magic = r.uint(4);
  let hasIndex: boolean;
  let hasCrc: boolean;
  let size: number;
  if (magic === MAGIC_GENERIC) {
    const flags = r.uint(1);
    hasIndex = (flags & 0x80) !== 0;
    hasCrc = (flags & 0x40) !== 0;
    if (flags & 0x18) throw new BocError(`unsupported BoC flags 0x${flags.toString(16)}`);
    size = flags & 7;
  } else if (magic === MAGIC_INDEXED || magic === MAGIC_INDEXED_CRC) {
    hasIndex = true;
    hasCrc = magic === MAGIC_INDEXED_CRC;
    size = r.uint(1);
  } else {
    throw new BocError(`not a bag of cells: magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  if (size < 1 || size > 4) throw new BocError(`invalid reference size ${size}`);
  const offBytes = r.uint(1);
  if (offBytes < 1 || offBytes > 8) throw new BocError(`invalid offset size ${offBytes}`);
  const cellCount = r.uint(size);
  const rootCount = magic === MAGIC_GENERIC ? r.uint(size) : 1;
  const absent = r.uint(size);
  const totalSize = r.uint(offBytes);
  if (magic !== MAGIC_GENERIC) r.uint(size); // roots field of the old formats; the root is cell 0
  if (rootCount < 1 || rootCount > cellCount) throw new BocError(`root count ${rootCount} with ${cellCount} cells`);
  if (absent !== 0) throw new BocError('BoCs with absent cells are not supported');

  const roots: number[] = [];
  if (magic === MAGIC_GENERIC) {
    for (let k = 0; k < rootCount; k++) roots.push(r.uint(size));
  } else {
    roots.push(0);
  }
  if (hasIndex) r.skip(cellCount * offBytes);
  const dataStart = r.pos;
  const dataEnd = dataStart + totalSize;
  const expectedEnd = dataEnd + (hasCrc ? 4 : 0);
  // Each cell takes at least two bytes: reject lying counts before allocating for them.
  if (cellCount * 2 > totalSize) throw new BocError(`${cellCount} cells cannot fit in ${totalSize} bytes`);
  if (expectedEnd > bytes.length) throw new BocError(`truncated: need ${expectedEnd} bytes, have ${bytes.length}`);
  if (expectedEnd < bytes.length) throw new BocError(`${bytes.length - expectedEnd} trailing bytes after the BoC`);
  if (hasCrc) {
    const stored = bytes[dataEnd] | (bytes[dataEnd + 1] << 8) | (bytes[dataEnd + 2] << 16) | (bytes[dataEnd + 3] << 24);
    if (crc32c(bytes, 0, dataEnd) !== stored >>> 0) throw new BocError('CRC32-C mismatch');
  }
  for (const root of roots) if (root >= cellCount) throw new BocError(`root index ${root} out of range`);

  const d2s = new Uint8Array(cellCount);
  const dataOffset = new Uint32Array(cellCount);
  const bitLength = new Uint16Array(cellCount);
  const refCount = new Uint8Array(cellCount);
  const refs = new Uint32Array(cellCount * 4);
  const special = new Uint8Array(cellCount);
  const levelMask = new Uint8Array(cellCount);
  let p = dataStart;
  for (let i = 0; i < cellCount; i++) {
    if (p + 2 > dataEnd) throw new BocError(`cell ${i} starts past the end of cell data`);
    const d1 = bytes[p];
    const d2 = bytes[p + 1];
    p += 2;
    const refCount_ = d1 & 7;
    if (refCount_ > 4) throw new BocError(`cell ${i} has ${refCount_} references`);
    const exotic = (d1 & 8) !== 0;
    const level = d1 >> 5;
    if (d1 & 16) p += (popcount(level) + 1) * (32 + 2); // stored hashes: recomputed, so skipped
    const len = (d2 >> 1) + (d2 & 1);
    if (p + len + refCount_ * size > dataEnd) throw new BocError(`cell ${i} runs past the end of cell data`);
    let bits = len * 8;
    if (d2 & 1) {
      const last = bytes[p + len - 1];
      if (last === 0) throw new BocError(`cell ${i}: missing completion tag`);
      bits -= ctz8(last) + 1;
    }
    special[i] = ORDINARY;
    if (exotic) {
      if (bits < 8) throw new BocError(`cell ${i}: exotic cell without a type byte`);
      special[i] = bytes[p];
    }
    d2s[i] = d2;
    dataOffset[i] = p;
    bitLength[i] = bits;
    levelMask[i] = level;
    refCount[i] = refCount_;
    p += len;
    for (let k = 0; k < refCount_; k++) {
      let ref = 0;
      for (let b = 0; b < size; b++) ref = ref * 256 + bytes[p++];
      if (ref <= i || ref >= cellCount) {
        throw new BocError(`cell ${i} refers to cell ${ref}: references must point forward and within ${cellCount} cells`);
      }
      refs[i * 4 + k] = ref;
    }
  }
  if (p !== dataEnd) throw new BocError(`cell data is ${totalSize} bytes but cells use ${p - dataStart}`);
  return new CellTable(bytes, { count: cellCount, roots, d2: d2s, dataOffset, bitLength, refCount, refs, special, levelMask });
}

class HeaderReader {
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  uint(n: number): number {
    if (this.pos + n > this.bytes.length) throw new BocError(`truncated: header needs ${this.pos + n} bytes, have ${this.bytes.length}`);
    let v = 0;
    for (let k = 0; k < n; k++) v = v * 256 + this.bytes[this.pos++];
    return v;
  }

  skip(n: number): void {
    this.pos += n;
  }
}

function ctz8(x: number): number {
  let n = 0;
  while ((x & 1) === 0) {
    x >>= 1;
    n++;
  }
  return n;
}

