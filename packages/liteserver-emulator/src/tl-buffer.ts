import { TonstreamError } from '@tonstream/errors';

/**
 * TL (de)serialisation buffers with the method set of ton-tl's TLReadBuffer/TLWriteBuffer, so
 * ton-lite-client's generated `Codecs` run on them unchanged. Ours copy byte strings with one
 * `set()` instead of ton-tl's byte-at-a-time loop (a 500 KB block is one call, not 500k) and
 * check every read against the end of the input.
 */

/** What a TL decoder needs; ton-tl's TLReadBuffer satisfies it too, so our codecs run on both. */
export type TlDecoder = {
  readInt32(): number;
  readUInt32(): number;
  readInt64(): string;
  readInt256(): Buffer;
  readBuffer(): Buffer;
  readBool(): boolean;
};

/** What a TL encoder needs; ton-tl's TLWriteBuffer satisfies it too. */
export type TlEncoder = {
  writeInt32(value: number): void;
  writeUInt32(value: number): void;
  writeInt64(value: string): void;
  writeInt256(value: Buffer): void;
  writeBuffer(value: Buffer): void;
  writeBool(value: boolean): void;
};

export const BOOL_TRUE = 0x997275b5;
export const BOOL_FALSE = 0xbc799737;
/** TL `bytes` longer than this need the 0xff length form, which ton-tl (and so ton-lite-client) cannot read. */
export const TL_BYTES_MAX = 0xffffff;

export class TlDecodeError extends TonstreamError {
  readonly code = 'TL_DECODE';
}

export class TlReader implements TlDecoder {
  #buf: Buffer;
  #offset = 0;

  constructor(buf: Buffer) {
    this.#buf = buf;
  }

  get offset(): number {
    return this.#offset;
  }

  get remaining(): number {
    return this.#buf.length - this.#offset;
  }

  #need(bytes: number): number {
    const at = this.#offset;
    if (at + bytes > this.#buf.length) {
      throw new TlDecodeError(`TL input ends at byte ${this.#buf.length}, needed ${bytes} more at ${at}`);
    }
    this.#offset = at + bytes;
    return at;
  }

  peekInt32(): number {
    if (this.remaining < 4) throw new TlDecodeError(`TL input ends at byte ${this.#buf.length}, needed a constructor id`);
    return this.#buf.readInt32LE(this.#offset);
  }

  readInt32(): number {
    return this.#buf.readInt32LE(this.#need(4));
  }

  readUInt32(): number {
    return this.#buf.readUInt32LE(this.#need(4));
  }

  readUInt8(): number {
    return this.#buf[this.#need(1)];
  }

  /** TL `long` as a decimal string, as ton-tl returns it. */
  readInt64(): string {
    return this.#buf.readBigInt64LE(this.#need(8)).toString();
  }

  readInt256(): Buffer {
    const at = this.#need(32);
    return this.#buf.subarray(at, at + 32);
  }

  readBuffer(): Buffer {
    let len = this.readUInt8();
    let header = 1;
    if (len === 254) {
      const at = this.#need(3);
      len = this.#buf.readUIntLE(at, 3);
      header = 4;
    } else if (len === 255) {
      throw new TlDecodeError(`TL bytes at ${this.#offset - 1} use the 0xff long form, not supported`);
    }
    const at = this.#need(len);
    const value = this.#buf.subarray(at, at + len);
    this.#need((4 - ((header + len) % 4)) % 4);
    return value;
  }

  readString(): string {
    return this.readBuffer().toString('utf-8');
  }

  readBool(): boolean {
    const at = this.#offset;
    const v = this.readUInt32();
    if (v === BOOL_TRUE) return true;
    if (v === BOOL_FALSE) return false;
    throw new TlDecodeError(`expected Bool at ${at}, got constructor 0x${v.toString(16)}`);
  }

  readVector<T>(codec: (reader: TlReader) => T): T[] {
    const count = this.readUInt32();
    // Each element takes at least 4 bytes; refuse counts that cannot fit before allocating.
    if (count > this.remaining / 4 + 1) throw new TlDecodeError(`vector of ${count} elements at ${this.#offset - 4} exceeds the input`);
    const out: T[] = [];
    for (let i = 0; i < count; i++) out.push(codec(this));
    return out;
  }

  /** The rest of the input (ton-tl's meaning of a bare "object"). */
  readObject(): Buffer {
    const at = this.#need(this.remaining);
    return this.#buf.subarray(at);
  }
}

const INITIAL_WRITER_BYTES = 256;

export class TlWriter implements TlEncoder {
  #buf: Buffer;
  #used = 0;

  constructor(capacity = INITIAL_WRITER_BYTES) {
    this.#buf = Buffer.allocUnsafe(capacity);
  }

  /** Grows the buffer if needed and returns where to write; read `#buf` only after calling it. */
  #reserve(bytes: number): number {
    const at = this.#used;
    const need = at + bytes;
    if (need > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.#buf.length * 2));
      this.#buf.copy(next, 0, 0, at);
      this.#buf = next;
    }
    this.#used = need;
    return at;
  }

  writeInt32(value: number): void {
    const at = this.#reserve(4);
    this.#buf.writeInt32LE(value, at);
  }

  writeUInt32(value: number): void {
    const at = this.#reserve(4);
    this.#buf.writeUInt32LE(value, at);
  }

  writeUInt8(value: number): void {
    const at = this.#reserve(1);
    this.#buf[at] = value;
  }

  /** TL `long` from a decimal string (the ton-tl representation); negative values allowed. */
  writeInt64(value: string): void {
    const at = this.#reserve(8);
    this.#buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(value)), at);
  }

  writeInt256(value: Buffer): void {
    if (value.length !== 32) throw new RangeError(`int256 must be 32 bytes, got ${value.length}`);
    const at = this.#reserve(32);
    value.copy(this.#buf, at);
  }

  writeBuffer(value: Buffer | Uint8Array): void {
    const len = value.length;
    if (len > TL_BYTES_MAX) throw new RangeError(`TL bytes of ${len} exceed ${TL_BYTES_MAX}, the longest ton-lite-client reads`);
    const header = len <= 253 ? 1 : 4;
    const padding = (4 - ((header + len) % 4)) % 4;
    const at = this.#reserve(header + len + padding);
    if (header === 1) {
      this.#buf[at] = len;
    } else {
      this.#buf[at] = 254;
      this.#buf.writeUIntLE(len, at + 1, 3);
    }
    this.#buf.set(value, at + header);
    this.#buf.fill(0, at + header + len, at + header + len + padding);
  }

  writeString(value: string): void {
    this.writeBuffer(Buffer.from(value, 'utf-8'));
  }

  writeBool(value: boolean): void {
    this.writeUInt32(value ? BOOL_TRUE : BOOL_FALSE);
  }

  writeVector<T>(codec: (item: T, writer: TlWriter) => void, items: readonly T[]): void {
    this.writeUInt32(items.length);
    for (const item of items) codec(item, this);
  }

  /** The bytes written so far (a view, valid until the next write). */
  build(): Buffer {
    return this.#buf.subarray(0, this.#used);
  }
}
