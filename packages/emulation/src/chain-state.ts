import type { Cell } from '@ton/core';
import type { BlockId } from '@tonstream/records';

/** The masterchain block emulation runs on top of: the newest one the chain source reports. */
export type HeadBlock = {
  seqno: number;
  /** 16 hex digits, as toncenter prints shards. */
  shard: string;
  rootHash: string;
  fileHash: string;
  /** gen_utime, seconds. */
  utime: number;
};

/** An account as of a head block: what the emulator runs a message against. */
export type AccountSnapshot = {
  /** ShardAccount BoC, base64 (account_none for an address nobody used). */
  shardAccount: string;
  /** The shard block the state was read from (emulated transactions go to its successor). */
  shardBlock: BlockId;
};

/**
 * Where the chain's current state comes from. Implementations cache: one emulation asks for the
 * head, the config and several accounts, and a burst of externals asks for the same ones.
 */
export type ChainState = {
  head(): Promise<HeadBlock>;
  /** `address` raw `wc:HEX`. */
  account(head: HeadBlock, address: string): Promise<AccountSnapshot>;
  /** The ConfigParams dictionary (Hashmap 32 ^Cell) as of `head`, BoC base64. */
  config(head: HeadBlock): Promise<string>;
  /** Library cells by hash (hex); unknown hashes are left out. */
  libraries(hashes: readonly string[]): Promise<Map<string, Cell>>;
};
