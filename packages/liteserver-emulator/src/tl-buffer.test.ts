import { describe, expect, it } from 'vitest';
import { TlDecodeError, TlReader, TlWriter } from './tl-buffer.js';

describe('TlWriter / TlReader', () => {
  it('pads short and long TL bytes to 4-byte boundaries', () => {
    const cases: [number, number][] = [
      [0, 4],
      [3, 4],
      [4, 8],
      [253, 256],
      [254, 260],
      [1000, 1004],
      [500_001, 500_008],
    ];
    for (const [len, encoded] of cases) {
      const w = new TlWriter(8);
      const value = Buffer.alloc(len, 0x5c);
      w.writeBuffer(value);
      const bytes = w.build();
      expect(bytes.length).toBe(encoded);
      expect(bytes[0]).toBe(len <= 253 ? len : 254);
      const r = new TlReader(Buffer.from(bytes));
      expect(r.readBuffer().equals(value)).toBe(true);
      expect(r.remaining).toBe(0);
    }
  });

  it('round-trips int64 strings at the edges, Bool and int256', () => {
    const w = new TlWriter();
    for (const v of ['-9223372036854775808', '9223372036854775807', '0', '-1']) w.writeInt64(v);
    w.writeBool(true);
    w.writeBool(false);
    w.writeInt256(Buffer.alloc(32, 9));
    const r = new TlReader(Buffer.from(w.build()));
    expect([r.readInt64(), r.readInt64(), r.readInt64(), r.readInt64()]).toEqual(['-9223372036854775808', '9223372036854775807', '0', '-1']);
    expect([r.readBool(), r.readBool()]).toEqual([true, false]);
    expect(r.readInt256()).toEqual(Buffer.alloc(32, 9));
  });

  it('keeps every field type intact when a write crosses a buffer growth', () => {
    // Regression: writers once captured the buffer before #reserve() replaced it with a larger one.
    const w = new TlWriter(6);
    for (let k = 0; k < 40; k++) {
      w.writeUInt8(k);
      w.writeInt32(-k - 1);
      w.writeUInt32(k * 1000);
      w.writeInt64(String(-k * 1_000_000_007));
      w.writeInt256(Buffer.alloc(32, k));
    }
    const r = new TlReader(Buffer.from(w.build()));
    for (let k = 0; k < 40; k++) {
      expect(r.readUInt8()).toBe(k);
      expect(r.readInt32()).toBe(-k - 1);
      expect(r.readUInt32()).toBe(k * 1000);
      expect(r.readInt64()).toBe(String(-k * 1_000_000_007));
      expect(r.readInt256()).toEqual(Buffer.alloc(32, k));
    }
  });

  it('reports reads past the end and bad Bool constructors', () => {
    expect(() => new TlReader(Buffer.from([254, 10, 0, 0, 1])).readBuffer()).toThrow(TlDecodeError);
    expect(() => new TlReader(Buffer.alloc(4)).readBool()).toThrow(/expected Bool at 0/);
    expect(() => new TlReader(Buffer.from([0xff, 0xff, 0xff, 0x7f])).readVector((r) => r.readInt32())).toThrow(/exceeds the input/);
  });
});
