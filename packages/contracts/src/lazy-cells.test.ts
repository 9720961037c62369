import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { cellFromBase64, cellFromBoc } from './lazy-cells.js';

const TRACES = join(import.meta.dirname, '../../../test/fixtures/mainnet/traces');
const BLOCKS = join(import.meta.dirname, '../../../test/fixtures/mainnet/blocks');

type Content = { body?: string } | null | undefined;
type FixtureMessage = { message_content?: Content; init_state?: Content };
type Fixture = { transactions: { messages: FixtureMessage[] }[]; message_contents?: Content[] };

/** Every message body and StateInit BoC of the recorded mainnet traces. */
function fixtureBocs(): string[] {
  const out = new Set<string>();
  for (const file of readdirSync(TRACES).filter((f) => f.endsWith('=.json'))) {
    const f = JSON.parse(readFileSync(join(TRACES, file), 'utf8')) as Fixture;
    for (const t of f.transactions) for (const m of t.messages) for (const c of [m.message_content, m.init_state]) if (c?.body) out.add(c.body);
    for (const c of f.message_contents ?? []) if (c?.body) out.add(c.body);
  }
  return [...out];
}

/** Reads every bit and ref of `cell` through slices, depth first (exotic cells too: library code in StateInits). */
function readAll(cell: Cell): string {
  const s = cell.beginParse(true);
  const bits = s.loadBits(s.remainingBits).toString();
  const refs: string[] = [];
  while (s.remainingRefs > 0) refs.push(readAll(s.loadRef()));
  return `${bits}[${refs.join(',')}]`;
}

describe('cellFromBase64()', () => {
  const bocs = fixtureBocs();

  it('gives the cells Cell.fromBoc gives for every body and StateInit of the mainnet traces', () => {
    expect(bocs.length).toBeGreaterThan(500);
    let deferred = 0;
    for (const boc of bocs) {
      const eager = Cell.fromBoc(Buffer.from(boc, 'base64'))[0];
      const lazy = cellFromBase64(boc);
      expect(lazy).toBeInstanceOf(Cell);
      expect(readAll(lazy)).toBe(readAll(eager));
      expect(lazy.hash().toString('hex')).toBe(eager.hash().toString('hex'));
      expect(lazy.depth()).toBe(eager.depth());
      expect(lazy.level()).toBe(eager.level());
      expect(lazy.equals(eager)).toBe(true);
      expect(lazy.toBoc({ idx: false, crc32: true }).toString('base64')).toBe(eager.toBoc({ idx: false, crc32: true }).toString('base64'));
      // Cell's constructor freezes its cells; the deferred ones are not (only BoCs with exotic cells fall back).
      if (!Object.isFrozen(lazy)) deferred++;
    }
    expect(deferred).toBeGreaterThan(bocs.length * 0.9);
  });

  it('hashes a cell built on top of its cells as on top of eager ones', () => {
    for (const boc of bocs.slice(0, 200)) {
      const eager = Cell.fromBoc(Buffer.from(boc, 'base64'))[0];
      const lazy = cellFromBase64(boc);
      if (lazy.refs.length === 4) continue;
      const wrap = (c: Cell) => beginCell().storeUint(7, 3).storeRef(c).storeSlice(c.beginParse()).endCell().hash().toString('hex');
      expect(wrap(lazy)).toBe(wrap(eager));
    }
  });

  it('falls back to Cell.fromBoc for a BoC with exotic cells (a block and its Merkle update)', () => {
    const file = readdirSync(BLOCKS).find((f) => f.endsWith('.boc'))!;
    const src = readFileSync(join(BLOCKS, file));
    const eager = Cell.fromBoc(src)[0];
    const lazy = cellFromBoc(src);
    expect(lazy.hash().toString('hex')).toBe(eager.hash().toString('hex'));
    expect(readAll(lazy)).toBe(readAll(eager));
  });

  it('refuses what Cell.fromBoc refuses', () => {
    const good = Buffer.from(bocs[0], 'base64');
    for (const bad of [Buffer.from('not a boc'), good.subarray(0, good.length - 3)]) {
      expect(() => Cell.fromBoc(bad)).toThrow();
      expect(() => cellFromBoc(bad)).toThrow();
    }
  });
});
