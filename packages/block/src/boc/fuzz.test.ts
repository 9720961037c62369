import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../normalize/normalize-block.js';
import { fixtureBlocks } from '../test-support/fixtures.js';
import { rng } from '../test-support/random.js';
import { crc32c } from './crc32c.js';
import { BocError, TlbError } from './errors.js';

/** Iterations of the seeded mutation fuzzer; FUZZ_ITERATIONS / FUZZ_SEED override. */
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 0x7015);

// Small and mid-sized blocks keep 10k iterations quick; every format is represented.
const corpus = fixtureBlocks().filter((b) => b.bytes.length < 110_000);

function mutate(src: Uint8Array, rnd: () => number): Uint8Array {
  let b = Uint8Array.from(src);
  if (rnd() < 0.5) {
    // Bit flips only: the layout survives, so these reach the TL-B readers and the hashing.
    for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) b[32 + Math.floor(rnd() * (b.length - 36))] ^= 1 << Math.floor(rnd() * 8);
    return withCrc(b);
  }
  const n = 1 + Math.floor(rnd() * 4);
  for (let k = 0; k < n; k++) {
    const at = Math.floor(rnd() * b.length);
    switch (Math.floor(rnd() * 6)) {
      case 0:
        b[at] ^= 1 << Math.floor(rnd() * 8);
        break;
      case 1:
        b[at] = Math.floor(rnd() * 256);
        break;
      case 2:
        b = b.subarray(0, at);
        break;
      case 3: {
        const out = new Uint8Array(b.length + 1);
        out.set(b.subarray(0, at));
        out[at] = Math.floor(rnd() * 256);
        out.set(b.subarray(at), at + 1);
        b = out;
        break;
      }
      case 4: {
        const out = new Uint8Array(b.length - 1);
        out.set(b.subarray(0, at));
        out.set(b.subarray(at + 1), at);
        b = out;
        break;
      }
      default:
        // Mutate the header region, where counts and sizes live.
        b[Math.floor(rnd() * Math.min(32, b.length))] = Math.floor(rnd() * 256);
    }
  }
  return rnd() < 0.9 ? withCrc(b) : b;
}

/** Most mutations would only trip the CRC; recomputing it lets them reach the parser proper. */
function withCrc(b: Uint8Array): Uint8Array {
  if (b.length > 8) new DataView(b.buffer, b.byteOffset).setUint32(b.length - 4, crc32c(b, 0, b.length - 4), true);
  return b;
}

describe(`decode fuzzer (seed ${SEED}, ${ITERATIONS} iterations)`, () => {
  it('only ever succeeds or throws BocError/TlbError', () => {
    const rnd = rng(SEED);
    const outcomes = { ok: 0, boc: 0, tlb: 0 };
    for (let i = 0; i < ITERATIONS; i++) {
      const input = mutate(corpus[i % corpus.length].bytes, rnd);
      try {
        decodeBlock(input);
        outcomes.ok++;
      } catch (err) {
        if (err instanceof BocError) outcomes.boc++;
        else if (err instanceof TlbError) outcomes.tlb++;
        else {
          const hex = Buffer.from(input).toString('hex');
          throw new Error(`iteration ${i} (seed ${SEED}): unexpected ${(err as Error).name}: ${(err as Error).message}; input ${hex.slice(0, 200)}…`, { cause: err });
        }
      }
    }
    console.log(`fuzz outcomes: ${JSON.stringify(outcomes)}`);
    expect(outcomes.ok + outcomes.boc + outcomes.tlb).toBe(ITERATIONS);
    // The mutations must reach past the header checks, or the fuzzer tests nothing.
    expect(outcomes.tlb).toBeGreaterThan(ITERATIONS / 100);
    expect(outcomes.ok).toBeGreaterThan(ITERATIONS / 100);
  }, 300_000);
});
