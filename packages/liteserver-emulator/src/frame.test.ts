import { describe, expect, it } from 'vitest';
import { FRAME_MAX_SIZE, FrameDecoder, FrameError, encodeFrame } from './frame.js';

describe('FrameDecoder', () => {
  it('reassembles frames from any chunking, including empty payloads', () => {
    const payloads = [Buffer.alloc(0), Buffer.from('ping'), Buffer.alloc(70_000, 3)];
    const stream = Buffer.concat(payloads.map((p) => encodeFrame(p)));
    for (const step of [1, 7, 4096, stream.length]) {
      const decoder = new FrameDecoder();
      const out: Buffer[] = [];
      for (let at = 0; at < stream.length; at += step) out.push(...decoder.push(stream.subarray(at, at + step)));
      expect(out.map((p) => p.toString('hex'))).toEqual(payloads.map((p) => p.toString('hex')));
      expect(decoder.bufferedBytes).toBe(0);
    }
  });

  it('lays a frame out as size ‖ nonce ‖ payload ‖ sha256(nonce ‖ payload)', () => {
    const nonce = Buffer.alloc(32, 0xaa);
    const frame = encodeFrame(Buffer.from([1, 2, 3]), nonce);
    expect(frame.readUInt32LE(0)).toBe(32 + 3 + 32);
    expect(frame.subarray(4, 36)).toEqual(nonce);
    expect(frame.subarray(36, 39)).toEqual(Buffer.from([1, 2, 3]));
    expect(frame.length).toBe(4 + 67);
  });

  it('rejects a flipped bit in the payload, the nonce or the checksum', () => {
    for (const at of [5, 36, 70]) {
      const frame = encodeFrame(Buffer.from([1, 2, 3]));
      frame[at] ^= 0x10;
      expect(() => new FrameDecoder().push(frame)).toThrow(new FrameError('frame checksum mismatch (size 67)'));
    }
  });

  it('rejects sizes below an empty frame and above the ADNL limit before buffering the body', () => {
    const small = Buffer.alloc(4);
    small.writeUInt32LE(63, 0);
    expect(() => new FrameDecoder().push(small)).toThrow(FrameError);
    const huge = Buffer.alloc(4);
    huge.writeUInt32LE(FRAME_MAX_SIZE + 1, 0);
    expect(() => new FrameDecoder().push(huge)).toThrow(/outside/);
  });

  it('keeps a partial frame until the rest arrives', () => {
    const frame = encodeFrame(Buffer.from('abc'));
    const decoder = new FrameDecoder();
    expect(decoder.push(frame.subarray(0, 40))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(36);
    expect(decoder.push(frame.subarray(40))).toEqual([Buffer.from('abc')]);
  });
});
