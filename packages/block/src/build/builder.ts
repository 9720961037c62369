import type { Slice } from '../boc/slice.js';
import type { MsgAddress } from '../tlb/common.js';
import { Cell, type CellType, MAX_CELL_BITS, MAX_CELL_REFS } from './cell.js';
import { cellFromTable } from './cell-boc.js';
import { BuildError } from './errors.js';

/** Widest integer written with plain number arithmetic (exact below 2^53). */
const NUMBER_CHUNK_BITS = 48;

/**
 * Writes bits and references into a new cell. Every store checks the cell limits (1023 bits,
 * 4 references) and the value's range, and throws a `BuildError` naming both.
 */
export class Builder {
  private readonly buf = new Uint8Array(128);
  private bitLen = 0;
  private readonly refList: Cell[] = [];

  get bits(): number {
    return this.bitLen;
  }

  get refs(): number {
    return this.refList.length;
  }

  get availableBits(): number {
    return MAX_CELL_BITS - this.bitLen;
  }

  get availableRefs(): number {
    return MAX_CELL_REFS - this.refList.length;
  }

  storeBit(v: boolean | number): this {
    this.need(1, 'a bit');
    if (v) this.buf[this.bitLen >> 3] |= 0x80 >> (this.bitLen & 7);
    this.bitLen++;
    return this;
  }

  /** Unsigned `n`-bit integer. */
  storeUint(v: number | bigint, n: number): this {
    checkWidth(n);
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new BuildError(`storeUint: ${v} is not a safe integer; pass a bigint`);
      if (n <= NUMBER_CHUNK_BITS && v >= 0 && v < 2 ** n) {
        this.need(n, `uint${n}`);
        this.put(v, n);
        return this;
      }
      v = BigInt(v);
    }
    if (v < 0n || v >= 1n << BigInt(n)) throw new BuildError(`storeUint: ${v} does not fit in ${n} unsigned bits`);
    this.need(n, `uint${n}`);
    let left = n;
    while (left > 0) {
      const take = left % NUMBER_CHUNK_BITS || NUMBER_CHUNK_BITS;
      left -= take;
      this.put(Number((v >> BigInt(left)) & ((1n << BigInt(take)) - 1n)), take);
    }
    return this;
  }

  /** Signed `n`-bit integer, two's complement. */
  storeInt(v: number | bigint, n: number): this {
    checkWidth(n);
    const b = BigInt(v);
    const half = n === 0 ? 0n : 1n << BigInt(n - 1);
    if (n === 0 ? b !== 0n : b < -half || b >= half) throw new BuildError(`storeInt: ${v} does not fit in ${n} signed bits`);
    return this.storeUint(b < 0n ? b + (half << 1n) : b, n);
  }

  /** The first `n` bits of `bytes`, most significant bit first. */
  storeBits(bytes: Uint8Array, n = bytes.length * 8): this {
    checkWidth(n);
    if (n > bytes.length * 8) throw new BuildError(`storeBits: ${n} bits requested from ${bytes.length} bytes`);
    this.need(n, `${n} bits`);
    const full = n >> 3;
    const rest = n & 7;
    if ((this.bitLen & 7) === 0) {
      this.buf.set(bytes.subarray(0, full), this.bitLen >> 3);
      this.bitLen += full * 8;
    } else {
      for (let k = 0; k < full; k++) this.put(bytes[k], 8);
    }
    if (rest) this.put(bytes[full] >> (8 - rest), rest);
    return this;
  }

  /** 256 bits, from 64 hex digits or 32 bytes. */
  storeHash(h: string | Uint8Array): this {
    const bytes = typeof h === 'string' ? hexToBytes(h, 32) : h;
    if (bytes.length !== 32) throw new BuildError(`storeHash: expected 32 bytes, got ${bytes.length}`);
    return this.storeBits(bytes, 256);
  }

  /** VarUInteger n: the byte length in ceil(log2 n) bits, then the value in that many bytes. */
  storeVarUint(v: number | bigint, n: number): this {
    const b = BigInt(v);
    if (b < 0n) throw new BuildError(`storeVarUint: negative value ${v}`);
    let bytes = 0;
    for (let x = b; x > 0n; x >>= 8n) bytes++;
    if (bytes >= n) throw new BuildError(`storeVarUint: ${v} needs ${bytes} bytes, VarUInteger ${n} holds at most ${n - 1}`);
    this.storeUint(bytes, 32 - Math.clz32(n - 1));
    return bytes ? this.storeUint(b, bytes * 8) : this;
  }

  /** Grams / Coins: VarUInteger 16. */
  storeCoins(v: number | bigint): this {
    return this.storeVarUint(v, 16);
  }

  storeRef(c: Cell): this {
    if (this.refList.length >= MAX_CELL_REFS) throw new BuildError(`storeRef: a cell holds at most ${MAX_CELL_REFS} references`);
    this.refList.push(c);
    return this;
  }

  /** Maybe ^X: a 0 bit, or a 1 bit and the reference. */
  storeMaybeRef(c?: Cell | null): this {
    return c ? this.storeBit(1).storeRef(c) : this.storeBit(0);
  }

  /**
   * MsgAddress: addr_none$00 (null or `{ type: 'none' }`), addr_extern$01, addr_std$10, addr_var$11.
   * A string is read as a raw `workchain:hex` std address.
   */
  storeAddress(a: MsgAddress | string | null): this {
    if (typeof a === 'string') a = parseRawAddress(a);
    if (!a || a.type === 'none') return this.storeUint(0, 2);
    if (a.type === 'extern') return this.storeUint(1, 2).storeUint(a.bits, 9).storeBits(a.data, a.bits);
    this.storeUint(a.type === 'std' ? 2 : 3, 2);
    if (a.anycast) this.storeBit(1).storeUint(a.anycast.depth, 5).storeBits(a.anycast.prefix, a.anycast.depth);
    else this.storeBit(0);
    if (a.type === 'std') return this.storeInt(a.workchain, 8).storeHash(a.hash);
    return this.storeUint(a.bits, 9).storeInt(a.workchain, 32).storeBits(a.data, a.bits);
  }

  /** Appends the bits and references of `c` from bit `fromBit` and reference `fromRef` on. */
  storeCellContents(c: Cell, fromBit = 0, fromRef = 0): this {
    if (fromBit === 0) this.storeBits(c.data, c.bits);
    else this.storeBits(bitsFrom(c.data, fromBit, c.bits - fromBit), c.bits - fromBit);
    for (let r = fromRef; r < c.refs.length; r++) this.storeRef(c.refs[r]);
    return this;
  }

  /** Appends what is left of a reader `Slice` (its remaining bits and references); `s` does not move. */
  storeSlice(s: Slice): this {
    const rest = s.clone();
    this.storeBits(rest.loadBits(rest.remainingBits), s.remainingBits);
    while (rest.remainingRefs > 0) this.storeRef(cellFromTable(rest.cells, rest.loadRef()));
    return this;
  }

  storeBuilder(b: Builder): this {
    this.storeBits(b.buf, b.bitLen);
    for (const r of b.refList) this.storeRef(r);
    return this;
  }

  /** The cell; `special` makes it exotic, its type taken from the first data byte. */
  endCell(opts: { special?: boolean } = {}): Cell {
    const type = opts.special ? this.buf[0] : 0;
    if (opts.special && (this.bitLen < 8 || type < 1 || type > 4)) throw new BuildError(`endCell: exotic type byte ${type} is not 1..4`);
    return new Cell(this.buf.subarray(0, (this.bitLen + 7) >> 3), this.bitLen, this.refList, type as CellType);
  }

  private need(n: number, what: string): void {
    if (this.bitLen + n > MAX_CELL_BITS) {
      throw new BuildError(`cell overflow: storing ${what} at bit ${this.bitLen} needs ${this.bitLen + n} bits, a cell holds ${MAX_CELL_BITS}`);
    }
  }

  /** Writes `v` (0 <= v < 2^n, n <= 48) at the end, byte chunk by byte chunk. */
  private put(v: number, n: number): void {
    let pos = this.bitLen;
    let left = n;
    while (left > 0) {
      const off = pos & 7;
      const take = 8 - off < left ? 8 - off : left;
      const chunk = Math.floor(v / 2 ** (left - take)) & ((1 << take) - 1);
      this.buf[pos >> 3] |= chunk << (8 - off - take);
      pos += take;
      left -= take;
    }
    this.bitLen = pos;
  }
}

export function beginCell(): Builder {
  return new Builder();
}

function checkWidth(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > MAX_CELL_BITS) throw new BuildError(`bit width ${n} is not 0..${MAX_CELL_BITS}`);
}

/** `n` bits of `data` starting at bit `from`, realigned to bit 0. */
function bitsFrom(data: Uint8Array, from: number, n: number): Uint8Array {
  const out = new Uint8Array((n + 7) >> 3);
  for (let k = 0; k < n; k++) {
    const b = from + k;
    if ((data[b >> 3] >> (7 - (b & 7))) & 1) out[k >> 3] |= 0x80 >> (k & 7);
  }
  return out;
}

export function hexToBytes(hex: string, length?: number): Uint8Array {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex) || (length !== undefined && hex.length !== length * 2)) {
    throw new BuildError(`expected ${length === undefined ? 'an even number of' : length * 2} hex digits, got "${hex.slice(0, 80)}"`);
  }
  return Buffer.from(hex, 'hex');
}

/** `workchain:hex64` (toncenter's raw form, any case) as a std address. */
export function parseRawAddress(raw: string): MsgAddress {
  const m = /^(-?\d+):([0-9a-fA-F]{64})$/.exec(raw);
  if (!m) throw new BuildError(`not a raw address (workchain:64 hex digits): "${raw}"`);
  return { type: 'std', workchain: Number(m[1]), hash: m[2].toLowerCase() };
}
