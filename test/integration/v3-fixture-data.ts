import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountStateRecord, decodeBlock } from '@tonstream/block';
import type { BlockRecord } from '@tonstream/records';
import { recordBatch, type Store, writeBatch } from '@tonstream/store';

/**
 * Fixture data the v3 suites load into a fresh database: the mainnet blocks (test/fixtures/mainnet)
 * and the localnet account states (test/fixtures/localnet), written as the pipeline writes them.
 */

const MAINNET_BLOCKS = join(import.meta.dirname, '../fixtures/mainnet/blocks');
const LOCALNET = join(import.meta.dirname, '../fixtures/localnet');

/**
 * The fixture blocks, each assigned to a committing masterchain block (the fixtures are not one chain,
 * so the grouping is ours; what is checked per block comes from SOURCES.md and the tongo oracles).
 */
export const MC = { a: 17734191, b: 24374597, c: 46991999 };
export const COMMITS: Record<number, string[]> = {
  [MC.a]: ['mc_-1_8000000000000000_17734191.boc', 'wc0_c000000000000000_13516764_after_merge.boc', 'wc0_0d83800000000000_4168601_after_merge_empty.boc'],
  [MC.b]: ['mc_-1_8000000000000000_24374597.boc', 'wc0_8000000000000000_30816553.boc', 'wc0_8000000000000000_40484416.boc', 'wc0_8000000000000000_40484438.boc'],
  [MC.c]: ['mc_-1_8000000000000000_46991999_keyblock.boc', 'wc0_6000000000000000_52111590.boc', 'wc0_a000000000000000_54302203.boc', 'wc0_a000000000000000_54302208.boc', 'wc0_8000000000000000_71398501.boc'],
};

/** Decodes the fixture blocks and writes each group under its masterchain seqno; returns the masterchain block records by seqno. */
export async function writeMainnetBlocks(store: Store): Promise<Record<number, BlockRecord>> {
  const mcBlocks: Record<number, BlockRecord> = {};
  for (const [mc, files] of Object.entries(COMMITS)) {
    const decoded = files.map((f) => decodeBlock(readFileSync(join(MAINNET_BLOCKS, f)), { mcSeqno: Number(mc) }));
    mcBlocks[Number(mc)] = decoded[0].block;
    await writeBatch(store, recordBatch({ blocks: decoded.map((d) => d.block), transactions: decoded.flatMap((d) => d.transactions), messages: decoded.flatMap((d) => d.messages) }));
  }
  return mcBlocks;
}

/** A state of test/fixtures/localnet/account-states.json. */
export type LocalnetState = { status: string; file: string; account: string; last_trans_lt: string; last_trans_hash_hex: string };
export const LOCALNET_STATES = (JSON.parse(readFileSync(join(LOCALNET, 'account-states.json'), 'utf8')) as { states: LocalnetState[] }).states;
export const localnetStateBoc = (state: LocalnetState) => readFileSync(join(LOCALNET, state.file));

/** Writes every localnet fixture state as seen at masterchain block `mcSeqno`. */
export async function writeLocalnetStates(store: Store, mcSeqno: number): Promise<void> {
  const states = LOCALNET_STATES.map((f) =>
    accountStateRecord(localnetStateBoc(f), {
      account: f.account, lastTransLt: f.last_trans_lt, lastTransHash: Buffer.from(f.last_trans_hash_hex, 'hex').toString('base64'), mcSeqno, genUtime: 1700000000 + mcSeqno,
    }),
  );
  await writeBatch(store, recordBatch({ accountStates: states }));
}
