import type { CellTable } from './cells.js';
import { TlbError } from './errors.js';

/**
 * A read cursor over one cell of a `CellTable`: bits are read from the BoC bytes in place.
 * `path` names what is being read, for error messages.
 */
export class Slice {
  private bit: number;
  private readonly end: number;
  private ref = 0;

  constructor(
    readonly cells: CellTable,
    readonly cell: number,
    public path = 'cell',
  ) {
    this.bit = cells.dataOffset[cell] * 8;
    this.end = this.bit + cells.bitLength[cell];
  }

  static of(cells: CellTable, cell: number, path: string): Slice {
    return new Slice(cells, cell, path);
  }

  get remainingBits(): number {
    return this.end - this.bit;
  }

  get remainingRefs(): number {
    return this.cells.refCount[this.cell] - this.ref;
  }

  /** Bit offset within the cell, for errors and for cutting sub-cells. */
  get offset(): number {
    return this.bit - this.cells.dataOffset[this.cell] * 8;
  }

  get refOffset(): number {
    return this.ref;
  }

  fail(message: string): never {
    throw new TlbError(message, this.path, this.cell, this.offset);
  }

  private need(n: number): void {
    if (this.bit + n > this.end) this.fail(`needs ${n} more bits, ${this.end - this.bit} left`);
  }

  loadBit(): boolean {
    this.need(1);
    const b = this.bit++;
    return ((this.cells.bytes[b >> 3] >> (7 - (b & 7))) & 1) === 1;
  }

  /** Unsigned integer of up to 48 bits. */
  loadUint(n: number): number {
    this.need(n);
    const bytes = this.cells.bytes;
    let pos = this.bit;
    let left = n;
    let v = 0;
    while (left > 0) {
      const off = pos & 7;
      const take = 8 - off < left ? 8 - off : left;
      v = v * (1 << take) + ((bytes[pos >> 3] >> (8 - off - take)) & ((1 << take) - 1));
      pos += take;
      left -= take;
    }
    this.bit = pos;
    return v;
  }

  /** Signed integer of up to 48 bits. */
  loadInt(n: number): number {
    const v = this.loadUint(n);
    return v >= 2 ** (n - 1) ? v - 2 ** n : v;
  }

  loadUintBig(n: number): bigint {
    let v = 0n;
    let left = n;
    while (left > 0) {
      const take = left > 48 ? 48 : left;
      v = (v << BigInt(take)) | BigInt(this.loadUint(take));
      left -= take;
    }
    return v;
  }

  /** `n` bits as bytes (the last byte zero-padded when `n` is not a multiple of 8). */
  loadBits(n: number): Uint8Array {
    this.need(n);
    const out = new Uint8Array((n + 7) >> 3);
    if ((this.bit & 7) === 0) {
      const start = this.bit >> 3;
      out.set(this.cells.bytes.subarray(start, start + out.length));
      if (n & 7) out[out.length - 1] &= 0xff << (8 - (n & 7));
      this.bit += n;
      return out;
    }
    for (let k = 0; k < n >> 3; k++) out[k] = this.loadUint(8);
    if (n & 7) out[out.length - 1] = this.loadUint(n & 7) << (8 - (n & 7));
    return out;
  }

  /** 256 bits as lowercase hex. */
  loadHash(): string {
    if ((this.bit & 7) === 0) {
      this.need(256);
      const start = this.bit >> 3;
      this.bit += 256;
      const b = this.cells.bytes;
      return Buffer.from(b.buffer, b.byteOffset + start, 32).toString('hex');
    }
    return Buffer.from(this.loadBits(256)).toString('hex');
  }

  skip(n: number): void {
    this.need(n);
    this.bit += n;
  }

  /** VarUInteger n: a length in bytes (log2(n) bits), then that many bytes. */
  loadVarUint(n: number): bigint {
    const len = this.loadUint(LEN_BITS[n] ?? Math.ceil(Math.log2(n)));
    if (len === 0) return 0n;
    if (len <= 6) return BigInt(this.loadUint(len * 8));
    return this.loadUintBig(len * 8);
  }

  /** Grams / Coins = VarUInteger 16. */
  loadCoins(): bigint {
    return this.loadVarUint(16);
  }

  loadRef(): number {
    const count = this.cells.refCount[this.cell];
    if (this.ref >= count) this.fail(`needs a reference, all ${count} used`);
    return this.cells.refs[this.cell * 4 + this.ref++];
  }

  loadRefSlice(path: string): Slice {
    return new Slice(this.cells, this.loadRef(), path);
  }

  loadMaybeRef(): number | undefined {
    return this.loadBit() ? this.loadRef() : undefined;
  }

  /** Either X ^X: the slice that holds X (this one, or the referenced cell). */
  loadEither(path: string): Slice {
    return this.loadBit() ? this.loadRefSlice(path) : this;
  }

  /** Fails unless everything has been read: catches a wrong constructor choice early. */
  expectEnd(): void {
    if (this.bit !== this.end || this.ref !== this.cells.refCount[this.cell]) {
      this.fail(`${this.end - this.bit} bits and ${this.remainingRefs} refs left unread`);
    }
  }

  /** A copy of this cursor: reading from it does not move this one. */
  clone(): Slice {
    const s = new Slice(this.cells, this.cell, this.path);
    s.bit = this.bit;
    s.ref = this.ref;
    return s;
  }
}

const LEN_BITS: Record<number, number> = { 3: 2, 7: 3, 16: 4, 32: 5 };
