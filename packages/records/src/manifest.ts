import { type Check, object, optional, uint32 } from './check.js';

/**
 * What a block amounts to in the record topics: how many records of each kind the decoder published
 * for it. It travels with the block's meta (header `manifest` on `ton.block_meta`), which the decoder
 * sends only after the records were acknowledged; a writer has stored the block once it has stored
 * that many records of each kind. Masterchain blocks also say how many blocks they commit (the
 * fetcher's bundle: new shard blocks plus the masterchain block itself), so the index knows when a
 * masterchain seqno is complete, and where the index began.
 */
export type BlockManifest = {
  transactions: number;
  messages: number;
  account_states: number;
  /** Masterchain blocks: blocks committed by this masterchain block, itself included. */
  mc_blocks?: number;
  /** Masterchain blocks of a fetcher run that started the index: its first masterchain seqno. */
  index_from?: number;
};

/** Kafka header of a block meta message that holds its manifest (JSON). */
export const MANIFEST_HEADER = 'manifest';

const manifestCheck: Check = object({
  transactions: uint32,
  messages: uint32,
  account_states: uint32,
  mc_blocks: optional(uint32),
  index_from: optional(uint32),
});

/** The manifest in a header value, or a reason why it is unusable. Never throws. */
export function parseManifest(text: string | undefined): { manifest: BlockManifest } | { problem: string } {
  if (text === undefined) return { problem: `block meta has no ${MANIFEST_HEADER} header` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `${MANIFEST_HEADER} header is not JSON: ${(err as Error).message}` };
  }
  const problem = manifestCheck(value);
  return problem === undefined ? { manifest: value as BlockManifest } : { problem: `${MANIFEST_HEADER} header${problem}` };
}
