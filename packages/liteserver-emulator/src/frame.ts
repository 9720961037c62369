/**
 * ADNL-over-TCP framing (plaintext side; the caller runs the AES-CTR streams):
 *   u32le size ‖ nonce(32) ‖ payload ‖ sha256(nonce ‖ payload),  size = 32 + payload + 32.
 */
import { createHash, randomBytes } from 'node:crypto';
import { TonstreamError } from '@tonstream/errors';

const NONCE_BYTES = 32;
const CHECKSUM_BYTES = 32;
const SIZE_BYTES = 4;
/** Smallest size field: an empty payload (the handshake confirmation). */
export const FRAME_MIN_SIZE = NONCE_BYTES + CHECKSUM_BYTES;
/** Largest size field accepted: upstream ADNL caps TCP packets at 16 MiB; anything larger is garbage. */
export const FRAME_MAX_SIZE = (1 << 24) + FRAME_MIN_SIZE;

export class FrameError extends TonstreamError {
  readonly code = 'ADNL_FRAME_INVALID';
}

/** One complete frame around `payload`, nonce random. */
export function encodeFrame(payload: Uint8Array, nonce: Uint8Array = randomBytes(NONCE_BYTES)): Buffer {
  const size = NONCE_BYTES + payload.length + CHECKSUM_BYTES;
  const frame = Buffer.allocUnsafe(SIZE_BYTES + size);
  frame.writeUInt32LE(size, 0);
  frame.set(nonce, SIZE_BYTES);
  frame.set(payload, SIZE_BYTES + NONCE_BYTES);
  const checksum = createHash('sha256').update(nonce).update(payload).digest();
  frame.set(checksum, SIZE_BYTES + NONCE_BYTES + payload.length);
  return frame;
}

/**
 * Incremental frame parser: feed decrypted bytes in any chunking, get whole payloads back. Throws
 * FrameError on a size outside [FRAME_MIN_SIZE, FRAME_MAX_SIZE] or a checksum mismatch; after that
 * the stream is unusable (the cipher position is lost), so the caller drops the connection.
 */
export class FrameDecoder {
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Size field of the frame being collected, or -1 while its 4 size bytes are not all here. */
  #size = -1;

  get bufferedBytes(): number {
    return this.#buffered;
  }

  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const payloads: Buffer[] = [];
    for (;;) {
      if (this.#size < 0) {
        if (this.#buffered < SIZE_BYTES) break;
        const size = this.#take(SIZE_BYTES).readUInt32LE(0);
        if (size < FRAME_MIN_SIZE || size > FRAME_MAX_SIZE) {
          throw new FrameError(`frame size ${size} outside [${FRAME_MIN_SIZE}, ${FRAME_MAX_SIZE}]`);
        }
        this.#size = size;
      }
      if (this.#buffered < this.#size) break;
      const body = this.#take(this.#size);
      this.#size = -1;
      const payloadEnd = body.length - CHECKSUM_BYTES;
      const expected = createHash('sha256').update(body.subarray(0, payloadEnd)).digest();
      if (!expected.equals(body.subarray(payloadEnd))) {
        throw new FrameError(`frame checksum mismatch (size ${body.length})`);
      }
      payloads.push(body.subarray(NONCE_BYTES, payloadEnd));
    }
    return payloads;
  }

  /** Remove and return the first `n` buffered bytes, copying only when they span chunks. */
  #take(n: number): Buffer {
    const first = this.#chunks[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      let used = 0; // whole chunks consumed; removed with one splice (shift per chunk is quadratic)
      while (filled < n) {
        const chunk = this.#chunks[used];
        const part = Math.min(chunk.length, n - filled);
        chunk.copy(out, filled, 0, part);
        filled += part;
        if (part === chunk.length) used++;
        else this.#chunks[used] = chunk.subarray(part);
      }
      this.#chunks.splice(0, used);
    }
    this.#buffered -= n;
    return out;
  }
}
