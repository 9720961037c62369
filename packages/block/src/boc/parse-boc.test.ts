import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../normalize/normalize-block.js';
import { fixtureBlocks, fixtureTransactions } from '../test-support/fixtures.js';
import { crc32c } from './crc32c.js';
import { BocError, TlbError } from './errors.js';
import { parseBoc } from './parse-boc.js';
import { type RawCell, writeBoc } from './write-boc.js';

const small = fixtureBlocks().find((b) => b.name.includes('54302203'))!.bytes;

function expectBocError(bytes: Uint8Array, message: RegExp) {
  expect(() => decodeBlock(bytes)).toThrow(BocError);
  expect(() => decodeBlock(bytes)).toThrow(message);
}

/** Header layout of the fixture BoCs: magic, flags, off_bytes, then 3 counts of `size` bytes. */
function header(bytes: Uint8Array) {
  const size = bytes[4] & 7;
  return { size, hasCrc: (bytes[4] & 0x40) !== 0, cellsAt: 6 };
}

function fixCrc(bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(bytes);
  const crc = crc32c(out, 0, out.length - 4);
  new DataView(out.buffer).setUint32(out.length - 4, crc, true);
  return out;
}

describe('parseBoc() on malformed input', () => {
  it('rejects a bad magic', () => {
    const b = Uint8Array.from(small);
    b[0] ^= 0xff;
    expectBocError(b, /not a bag of cells: magic/);
  });

  it('rejects truncation anywhere', () => {
    expect(header(small).hasCrc).toBe(true);
    for (const len of [0, 3, 5, 10, 100, small.length - 1]) expectBocError(small.subarray(0, len), /truncated/);
  });

  it('rejects a wrong CRC', () => {
    const b = Uint8Array.from(small);
    b[200] ^= 1;
    expectBocError(b, /CRC32-C mismatch/);
  });

  it('rejects a cell count that lies', () => {
    const { size, cellsAt } = header(small);
    const b = Uint8Array.from(small);
    b[cellsAt + size - 1] += 1;
    expectBocError(fixCrc(b), /truncated|cell data is|runs past|starts past/);
    const huge = Uint8Array.from(small);
    for (let k = 0; k < size; k++) huge[cellsAt + k] = 0xff;
    expectBocError(fixCrc(huge), /cannot fit/);
  });

  it('rejects references that point backwards or to the cell itself (cycles)', () => {
    const cell = (refs: number[]): RawCell => ({ data: new Uint8Array([0xab]), bits: 8, refs, special: 0, levelMask: 0 });
    const ok = writeBoc([cell([1]), cell([])]);
    expect(parseBoc(ok).hashHex(0)).toMatch(/^[0-9a-f]{64}$/);
    // Patch the ref byte of cell 0 to point at itself, then at nothing valid.
    const selfRef = Uint8Array.from(ok);
    const refAt = ok.length - 4 - 3 - 1; // cell 1 is 3 bytes (d1 d2 data); cell 0's ref byte precedes it
    expect(selfRef[refAt]).toBe(1);
    selfRef[refAt] = 0;
    expectBocError(fixCrc(selfRef), /refers to cell 0: references must point forward/);
  });

  it('rejects a BoC with trailing garbage', () => {
    const b = new Uint8Array(small.length + 3);
    b.set(small);
    expectBocError(b, /trailing bytes/);
  });

  it('gives a TlbError naming the structure for a valid BoC that is not a block', () => {
    const tx = Buffer.from(fixtureTransactions()[0].boc_base64, 'base64');
    expect(() => decodeBlock(tx)).toThrow(TlbError);
    expect(() => decodeBlock(tx)).toThrow(/^Block: not a Block \(tag 0x11ef55aa\)/);
  });

  it('survives a 100,000-cell chain without blowing the stack', () => {
    const n = 100_000;
    const cells: RawCell[] = [];
    for (let i = 0; i < n; i++) cells.push({ data: new Uint8Array([i & 0xff]), bits: 8, refs: i + 1 < n ? [i + 1] : [], special: 0, levelMask: 0 });
    expect(() => parseBoc(writeBoc(cells)).hashHex(0)).toThrow(/deeper than 1024/);
  });
});
