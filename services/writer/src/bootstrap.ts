/**
 * State bootstrap: the latest state of every account of every shard at masterchain block S, read
 * from the shard states a liteserver serves (liteServer.getState) and written as the pipeline's
 * account state records (the decoder's normalization and contract facts), in bounded batches.
 *
 * Every record says `mc_block_seqno: S`, so the API shows it once the watermark reaches S (start
 * the index at S: the states before S are then all there is). The tables keep an account's state
 * with the highest `last_trans_lt`: a state indexed after S has a higher lt and wins; at an equal lt
 * the state is the same. Writing again writes the same rows (idempotent).
 */
import { accountStateRecord, decodeBlock, skipCurrencyCollection, loadShardAccount, parseBoc, partBoc, Slice, walkHashmapAugE, type CellTable } from '@tonstream/block';
import { describeAccount } from '@tonstream/contracts';
import type { BlockIdExt, LiteReads } from '@tonstream/lite-client';
import type { AccountStateRecord, BlockRef } from '@tonstream/records';
import { recordBatch, type Store, writeBatch } from '@tonstream/store';
import { TonstreamError } from '@tonstream/errors';

export const DEFAULT_BOOTSTRAP_BATCH = 2_000;
const MASTERCHAIN = -1;
const ROOT_SHARD = 1n << 63n;

export class BootstrapError extends TonstreamError {
  readonly code = 'BOOTSTRAP';
}

export type BootstrapProgress = { block: string; accounts: number; blockAccounts: number; totalAccounts: number };

export type BootstrapOptions = {
  /** Account states per writeBatch. @default DEFAULT_BOOTSTRAP_BATCH */
  batchSize?: number;
  /** After every batch. */
  onProgress?: (p: BootstrapProgress) => void;
};

export type BootstrapResult = { mcSeqno: number; blocks: number; accounts: number; skipped: { account: string; error: string }[] };

/** One account of a shard state: where its Account cell is, and its last transaction. */
type StateEntry = { account: string; accountCell: number; lastTransLt: string; lastTransHash: string };

export async function bootstrapStates(reads: LiteReads, store: Store, mcSeqno: number, options: BootstrapOptions = {}): Promise<BootstrapResult> {
  const batchSize = options.batchSize ?? DEFAULT_BOOTSTRAP_BATCH;
  const mc = (await reads.lookupBlock(MASTERCHAIN, ROOT_SHARD, { seqno: mcSeqno })).id;
  if (mc.workchain !== MASTERCHAIN || mc.seqno !== mcSeqno) throw new BootstrapError(`lookupBlock(${mcSeqno}) answered ${mc.workchain}:${mc.seqno}`);
  const mcBlock = await reads.block(mc);
  const tops = decodeBlock(mcBlock.data, { rootHash: mc.rootHash.toString('hex'), fileHash: mc.fileHash.toString('hex') }).shards;
  const blocks = [mc, ...tops.map(toTlBlockId)];
  const result: BootstrapResult = { mcSeqno, blocks: blocks.length, accounts: 0, skipped: [] };
  for (const id of blocks) {
    const label = `${id.workchain}:${BigInt.asUintN(64, BigInt(id.shard)).toString(16).padStart(16, '0')}:${id.seqno}`;
    const state = await reads.state(id);
    if (state.id.seqno !== id.seqno || state.id.workchain !== id.workchain) throw new BootstrapError(`getState(${label}) answered the state of ${state.id.workchain}:${state.id.seqno}`);
    const { cells, genUtime, entries } = shardStateEntries(state.data, id.workchain);
    let done = 0;
    // The entries are cell positions: the records (with code and data BoCs) exist one batch at a time.
    for (let i = 0; i < entries.length; i += batchSize) {
      const states: AccountStateRecord[] = [];
      for (const e of entries.slice(i, i + batchSize)) {
        try {
          const st = accountStateRecord(partBoc(cells, { kind: 'cell', cell: e.accountCell }), { account: e.account, lastTransLt: e.lastTransLt, lastTransHash: e.lastTransHash, mcSeqno, genUtime });
          states.push({ ...st, contract: describeAccount(st) });
        } catch (err) {
          result.skipped.push({ account: e.account, error: (err as Error).message });
        }
      }
      await writeBatch(store, recordBatch({ accountStates: states }));
      done += states.length;
      result.accounts += states.length;
      options.onProgress?.({ block: label, accounts: done, blockAccounts: entries.length, totalAccounts: result.accounts });
    }
  }
  return result;
}

/**
 * shard_state#9023afe2 global_id:int32 shard_id:ShardIdent seq_no:uint32 vert_seq_no:# gen_utime:uint32 …
 *   out_msg_queue_info:^OutMsgQueueInfo before_split:(## 1) accounts:^ShardAccounts …
 * ShardAccounts = HashmapAugE 256 ShardAccount DepthBalanceInfo; depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection.
 */
export function shardStateEntries(boc: Uint8Array, workchain: number): { cells: CellTable; genUtime: number; entries: StateEntry[] } {
  const cells = parseBoc(boc);
  const s = new Slice(cells, cells.roots[0], 'ShardStateUnsplit');
  if (s.loadUint(32) !== 0x9023afe2) s.fail('not a ShardStateUnsplit (tag 0x9023afe2)');
  s.loadInt(32);
  // shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64
  s.loadUint(2);
  s.loadUint(6);
  s.loadInt(32);
  s.loadUintBig(64);
  s.loadUint(32);
  s.loadUint(32);
  const genUtime = s.loadUint(32);
  s.loadRef();
  s.loadBit();
  const accounts = new Slice(cells, s.loadRef(), 'ShardAccounts');
  const entries: StateEntry[] = [];
  walkHashmapAugE(accounts, 256, (key, v) => {
    const sa = loadShardAccount(v);
    if (sa.account.type === 'none') return;
    entries.push({
      account: `${workchain}:${bitsToHex(key)}`,
      accountCell: sa.accountCell,
      lastTransLt: sa.lastTransLt.toString(),
      lastTransHash: Buffer.from(sa.lastTransHash, 'hex').toString('base64'),
    });
  }, skipDepthBalance);
  return { cells, genUtime, entries };
}

function skipDepthBalance(s: Slice): void {
  s.loadUint(5);
  skipCurrencyCollection(s);
}

function bitsToHex(bits: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bits.length; i += 4) out += ((bits[i] << 3) | (bits[i + 1] << 2) | (bits[i + 2] << 1) | bits[i + 3]).toString(16);
  return out.toUpperCase();
}

function toTlBlockId(id: BlockRef): BlockIdExt {
  return {
    kind: 'tonNode.blockIdExt',
    workchain: id.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${id.shard}`)).toString(),
    seqno: id.seqno,
    rootHash: Buffer.from(id.root_hash, 'base64'),
    fileHash: Buffer.from(id.file_hash, 'base64'),
  };
}
