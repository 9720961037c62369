import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BitBuilder, beginCell, Cell } from '@ton/core';
import { decodeBlock } from '@tonstream/block';
import { describe, expect, it } from 'vitest';
import { bodyJson, bodyJsonFromText } from './body-json.js';
import { readBody } from './read-body.js';
import { FIXTURES } from './test-support/mainnet.js';
import { rng } from '../../block/src/test-support/random.js';

// Every message body of the 12 fixture blocks, then seeded mutations of them: nothing throws out
// of the package, and the typed reading and the printed JSON agree on which bodies they know.

/** The bodies of every message (both directions) of the fixture blocks, deduplicated by hash. */
function fixtureBodies(): Cell[] {
  const dir = join(FIXTURES, 'blocks');
  const seen = new Map<string, Cell>();
  for (const f of readdirSync(dir)) {
    for (const m of decodeBlock(readFileSync(join(dir, f))).messages) {
      if (m.message_content && !seen.has(m.message_content.hash)) seen.set(m.message_content.hash, Cell.fromBase64(m.message_content.body));
    }
  }
  return [...seen.values()];
}

const knows = (json: object) => !('error' in json) && !('empty_cell' in json);

describe('every fixture body', () => {
  const bodies = fixtureBodies();

  it('is read and printed without a throw, and both agree on whether it is known', () => {
    expect(bodies.length).toBeGreaterThan(500);
    let known = 0;
    for (const body of bodies) {
      const json = bodyJson(body.toBoc());
      expect(JSON.parse(JSON.stringify(json))).toEqual(json);
      const read = readBody(body);
      expect(read !== null, `${body.hash().toString('hex')}: ${JSON.stringify(json).slice(0, 200)}`).toBe(knows(json));
      if (read) {
        known++;
        expect((json as { '@type': string })['@type']).toBe(read.name);
      }
    }
    // 100 of the 563 distinct bodies (the rest: DEX, lending and other non-standard contracts).
    expect(known).toBeGreaterThanOrEqual(100);
  });
});

describe('seeded mutations', () => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261124);
  const iterations = Number(process.env.FUZZ_ITERATIONS ?? 3000);
  const bodies = fixtureBodies().filter((b) => b.bits.length >= 32);

  it(`never throw (FUZZ_SEED=${seed}, FUZZ_ITERATIONS=${iterations})`, () => {
    const rnd = rng(seed); // seeded: a failure replays with FUZZ_SEED
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    let decodedMutants = 0;
    for (let i = 0; i < iterations; i++) {
      const body = pick(bodies);
      const kind = Math.floor(rnd() * 4);
      let input: Cell | Uint8Array | string;
      if (kind === 0) {
        // Flip a few bits of the root cell, keeping the opcode most of the time.
        const bits = body.bits;
        const b = new BitBuilder(bits.length);
        const flips = new Set(Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => Math.floor(rnd() * bits.length)));
        for (let j = 0; j < bits.length; j++) b.writeBit(flips.has(j) && (j >= 32 || rnd() < 0.2) ? !bits.at(j) : bits.at(j));
        const c = beginCell().storeBits(b.build());
        for (const r of body.refs) c.storeRef(r);
        input = c.endCell();
      } else if (kind === 1) {
        // Cut the root cell's bits short, or drop its last ref.
        const s = body.beginParse();
        const c = beginCell().storeBits(s.loadBits(Math.floor(rnd() * body.bits.length)));
        for (const r of body.refs.slice(0, rnd() < 0.5 ? body.refs.length : Math.max(0, body.refs.length - 1))) c.storeRef(r);
        input = c.endCell();
      } else if (kind === 2) {
        // Corrupt bytes of the BoC itself.
        const boc = Buffer.from(body.toBoc());
        for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) boc[Math.floor(rnd() * boc.length)] = Math.floor(rnd() * 256);
        input = boc;
      } else {
        input = Buffer.from(Array.from({ length: Math.floor(rnd() * 64) }, () => Math.floor(rnd() * 256))).toString(rnd() < 0.5 ? 'hex' : 'base64');
      }
      const json = typeof input === 'string' ? bodyJsonFromText(input) : bodyJson(input instanceof Cell ? input.toBoc() : input);
      expect(typeof json).toBe('object');
      if (input instanceof Cell) {
        expect(() => readBody(input)).not.toThrow();
        if (knows(json)) decodedMutants++;
      }
    }
    // Mutations past the opcode still decode often: the layouts are exercised, not just refused.
    expect(decodedMutants).toBeGreaterThan(iterations / 40);
  });
});
