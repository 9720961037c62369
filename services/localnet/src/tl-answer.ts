/**
 * Answers encoded here rather than by @tonstream/liteserver: its TlWriter grows its buffer inside
 * the argument list of writes to the old buffer (`this.#buf.writeInt32LE(v, this.#reserve(4))`), so
 * any fixed-size field that crosses its 256-byte start capacity throws "offset out of range"
 * (listBlockTransactions with 3+ ids, getTransactions with 3+ ids, proofs before runSmcMethod's
 * exit code). A handler may return the boxed bytes itself; this writer grows before writing.
 * Remove once the package's writer is fixed.
 */
import { Codecs } from 'ton-lite-client/dist/schema.js';

const INITIAL_BYTES = 1024;

/** The TL encoder interface ton-lite-client's generated codecs write to. */
class TlAnswerWriter {
  #buf = Buffer.allocUnsafe(INITIAL_BYTES);
  #used = 0;

  #take(bytes: number): number {
    const at = this.#used;
    if (at + bytes > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(at + bytes, this.#buf.length * 2));
      this.#buf.copy(next, 0, 0, at);
      this.#buf = next;
    }
    this.#used = at + bytes;
    return at;
  }

  writeInt32(v: number): void {
    const at = this.#take(4);
    this.#buf.writeInt32LE(v, at);
  }

  writeUInt32(v: number): void {
    const at = this.#take(4);
    this.#buf.writeUInt32LE(v >>> 0, at);
  }

  writeInt64(v: string): void {
    const at = this.#take(8);
    this.#buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(v)), at);
  }

  writeInt256(v: Buffer): void {
    if (v.length !== 32) throw new RangeError(`int256 must be 32 bytes, got ${v.length}`);
    const at = this.#take(32);
    this.#buf.set(v, at);
  }

  writeBool(v: boolean): void {
    this.writeUInt32(v ? 0x997275b5 : 0xbc799737);
  }

  /** TL bytes: a 1-byte length up to 253, else 0xfe and a 3-byte length; padded to 4 bytes. */
  writeBuffer(v: Uint8Array): void {
    const header = v.length <= 253 ? 1 : 4;
    const padding = (4 - ((header + v.length) % 4)) % 4;
    const at = this.#take(header + v.length + padding);
    if (header === 1) this.#buf[at] = v.length;
    else {
      this.#buf[at] = 254;
      this.#buf.writeUIntLE(v.length, at + 1, 3);
    }
    this.#buf.set(v, at + header);
    this.#buf.fill(0, at + header + v.length, at + header + v.length + padding);
  }

  writeString(v: string): void {
    this.writeBuffer(Buffer.from(v, 'utf-8'));
  }

  writeVector<T>(codec: (item: T, w: TlAnswerWriter) => void, items: readonly T[]): void {
    this.writeUInt32(items.length);
    for (const item of items) codec(item, this);
  }

  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#used);
  }
}

type BoxedCodec = { encode(value: unknown, writer: TlAnswerWriter): void };
const codecs = Codecs as unknown as Record<string, BoxedCodec | undefined>;

/**
 * The boxed TL bytes of a result object (`kind` names its constructor, e.g. `liteServer.blockTransactions`
 * is written by the boxed codec `liteServer_BlockTransactions`). Values ton-lite-client has no codec
 * for, and bytes, are returned unchanged for the server to encode.
 */
export function encodeAnswer(result: unknown): unknown {
  if (result instanceof Uint8Array || typeof result !== 'object' || result === null) return result;
  const kind = (result as { kind?: unknown }).kind;
  if (typeof kind !== 'string') return result;
  const dot = kind.lastIndexOf('.');
  const codec = codecs[`${kind.slice(0, dot).replaceAll('.', '_')}_${kind.charAt(dot + 1).toUpperCase()}${kind.slice(dot + 2)}`];
  if (!codec) return result;
  const w = new TlAnswerWriter();
  codec.encode(result, w);
  return w.bytes();
}
