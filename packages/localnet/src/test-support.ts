import { loadBlock, parseBoc, type Block } from '@tonstream/block';
import type { StoredBlock } from './types.js';

/** Test helper: every block of a list of rounds, masterchain block last within its round. */
export function blocksOf(rounds: { mc: StoredBlock; shards: StoredBlock[] }[]): StoredBlock[] {
  return rounds.flatMap((r) => [...r.shards, r.mc]);
}

/** Test helper: the block's TL-B as the block package reads it. */
export function readBlock(b: StoredBlock): Block {
  return loadBlock(parseBoc(b.boc));
}

export const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
