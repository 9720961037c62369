/**
 * `npm run --silent bench:decode`: block decoding throughput of tonstream against @ton/core on the
 * same bytes in the same run. Prints one JSON line.
 *  - tonstream_verified: decodeBlock() computing every hash, so the root hash is checked.
 *  - tonstream_known_root: decodeBlock() given the root hash (as the fetcher is, by the masterchain),
 *    hashing only what the records need.
 *  - ton_core: Cell.fromBoc + Dictionary walk + loadTransaction + hashes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeBlock } from '../normalize/normalize-block.js';
import { tonCoreBlockTransactions } from './ton-core-baseline.js';

const BLOCKS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/mainnet/blocks');
const BIG_BLOCK = 'wc0_8000000000000000_71398501.boc';
/** Minimum measuring time per figure; at least 3 rounds. */
const MIN_MS = Number(process.env.BENCH_MIN_MS ?? 3000);

type Figure = { blocks_per_s: number; tx_per_s: number; ms_per_block: number };

function measure(blocks: Buffer[], txs: number, run: (b: Buffer) => void): Figure {
  for (const b of blocks) run(b); // warm up
  for (const b of blocks) run(b);
  let rounds = 0;
  const start = performance.now();
  let elapsed = 0;
  while (rounds < 3 || elapsed < MIN_MS) {
    for (const b of blocks) run(b);
    rounds++;
    elapsed = performance.now() - start;
  }
  const perRound = elapsed / rounds / 1000;
  return {
    blocks_per_s: round(blocks.length / perRound),
    tx_per_s: round(txs / perRound),
    ms_per_block: round((perRound * 1000) / blocks.length, 3),
  };
}

function round(x: number, digits = 1): number {
  return Number(x.toFixed(digits));
}

function compare(name: string, files: string[]) {
  const blocks = files.map((f) => readFileSync(join(BLOCKS_DIR, f)));
  const roots = blocks.map((b) => decodeBlock(b).block.root_hash);
  let txs = 0;
  for (const [k, b] of blocks.entries()) {
    const ours = decodeBlock(b, { rootHash: roots[k] }).transactions.map((t) => Buffer.from(t.hash, 'base64').toString('hex')).sort();
    const theirs = tonCoreBlockTransactions(b).sort();
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error(`${files[k]}: transaction hashes differ from @ton/core`);
    txs += ours.length;
  }
  const verified = measure(blocks, txs, (b) => decodeBlock(b));
  let i = 0;
  const knownRoot = measure(blocks, txs, (b) => decodeBlock(b, { rootHash: roots[i++ % blocks.length] }));
  const tonCore = measure(blocks, txs, (b) => tonCoreBlockTransactions(b));
  return {
    name,
    blocks: blocks.length,
    bytes: blocks.reduce((n, b) => n + b.length, 0),
    transactions: txs,
    hashes_identical: true,
    tonstream_verified: verified,
    tonstream_known_root: knownRoot,
    ton_core: tonCore,
    ratio_verified: round(verified.blocks_per_s / tonCore.blocks_per_s, 2),
    ratio_known_root: round(knownRoot.blocks_per_s / tonCore.blocks_per_s, 2),
  };
}

const all = readdirSync(BLOCKS_DIR).filter((f) => f.endsWith('.boc')).sort();
const result = {
  bench: 'decode',
  node: process.version,
  big_block: compare(BIG_BLOCK, [BIG_BLOCK]),
  all_blocks: compare('all fixture blocks', all),
};
process.stdout.write(JSON.stringify(result) + '\n');
