/**
 * Raw block messages made from the mainnet fixture blocks, as the fetcher would publish them, for
 * the decoder's tests, the pipeline integration test and the pipeline bench.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beginCell, cellToBoc, decodeBlock, type BlockRecords } from '@tonstream/block';
import type { RawBlock } from '@tonstream/bus';

export const FIXTURE_BLOCKS_DIR = join(import.meta.dirname, '../../../../test/fixtures/mainnet/blocks');

export type FixtureBlock = { file: string; raw: RawBlock; records: BlockRecords };

/**
 * An `Account` BoC (uninit, no code) for `account` with the given last transaction lt and balance;
 * what a liteserver would return for a touched account. StorageInfo as of 2025 (storage_extra_none).
 */
export function uninitAccountBoc(account: string, lastTransLt: bigint, balance: bigint): Uint8Array {
  const cell = beginCell()
    .storeBit(1)
    .storeAddress(account)
    .storeVarUint(1, 7) // storage_used cells
    .storeVarUint(103, 7) // storage_used bits
    .storeUint(0, 3) // storage_extra_none
    .storeUint(1_700_000_000, 32) // last_paid
    .storeBit(0) // no due_payment
    .storeUint(lastTransLt, 64)
    .storeCoins(balance)
    .storeBit(0) // no extra currencies
    .storeBit(0) // not active
    .storeBit(0) // uninit
    .endCell();
  return cellToBoc(cell);
}

/**
 * The 12 fixture blocks as raw block messages with their real root hashes (computed, so checked) and
 * no account states; `withAccountState` attaches a fabricated state for the first touched account
 * of the first block that has transactions.
 */
export function fixtureRawBlocks(options: { withAccountState?: boolean; seenAtMs?: number } = {}): FixtureBlock[] {
  const out: FixtureBlock[] = [];
  let attached = !options.withAccountState;
  for (const file of readdirSync(FIXTURE_BLOCKS_DIR).filter((f) => f.endsWith('.boc')).sort()) {
    const boc = readFileSync(join(FIXTURE_BLOCKS_DIR, file));
    const probe = decodeBlock(boc);
    const b = probe.block;
    const mcSeqno = b.mc_block_seqno ?? b.master_ref_seqno;
    const raw: RawBlock = {
      workchain: b.workchain,
      shard: b.shard,
      seqno: b.seqno,
      root_hash: b.root_hash,
      file_hash: createHash('sha256').update(boc).digest('hex'),
      mc_seqno: mcSeqno,
      seen_at_ms: options.seenAtMs ?? Date.now(),
      boc,
      account_states: [],
    };
    if (!attached && probe.accounts.length > 0) {
      const a = probe.accounts[0];
      raw.account_states.push({ account: a.account, boc: uninitAccountBoc(a.account, BigInt(a.last_trans_lt), 1_000_000_000n), last_trans_lt: a.last_trans_lt, last_trans_hash: a.last_trans_hash });
      attached = true;
    }
    out.push({ file, raw, records: decodeBlock(boc, { rootHash: raw.root_hash, fileHash: raw.file_hash, mcSeqno }) });
  }
  return out;
}
