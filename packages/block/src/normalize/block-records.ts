/**
 * What the decoder makes of a block besides its topic records: the accounts it touched (where the
 * fetcher reads states) and, for masterchain blocks, the shard tops it commits.
 */
import type { BlockRecord, BlockRef, MessageRow, TransactionRecord } from '@tonstream/records';

/** An account the block touched, with its last transaction in the block: where to fetch its new state. */
export type TouchedAccount = { account: string; last_trans_lt: string; last_trans_hash: string; tx_count: number };

/** A shard block a masterchain block commits (its ShardHashes entry). */
export type ShardBlockRecord = BlockRef & {
  start_lt: string;
  gen_utime: number;
  reg_mc_seqno: number;
  before_split: boolean;
  before_merge: boolean;
  want_split: boolean;
  want_merge: boolean;
};

export type BlockRecords = {
  block: BlockRecord;
  transactions: TransactionRecord[];
  messages: MessageRow[];
  accounts: TouchedAccount[];
  /** Masterchain blocks only: the shard tops in ShardHashes. */
  shards: ShardBlockRecord[];
};
