import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/mainnet of this repository (real mainnet data; see its SOURCES.md). */
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/mainnet');

export function fixtureBlocks(): { name: string; bytes: Buffer }[] {
  const dir = join(FIXTURES, 'blocks');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.boc'))
    .sort()
    .map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}

/** Root hashes as listed in SOURCES.md, keyed by file name. */
export function sourcesRootHashes(): Map<string, string> {
  const text = readFileSync(join(FIXTURES, 'SOURCES.md'), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^\| (\S+\.boc) \| ([0-9a-f]{64}) \|/gm)) out.set(m[1], m[2]);
  return out;
}

export type FixtureTransaction = {
  category: string;
  block_file: string;
  account: string;
  lt: string;
  now: number;
  hash_hex: string;
  boc_base64: string;
};

export function fixtureTransactions(): FixtureTransaction[] {
  return JSON.parse(readFileSync(join(FIXTURES, 'transactions.json'), 'utf8')).transactions;
}

export function readFixture(path: string): Buffer {
  return readFileSync(join(FIXTURES, path));
}
