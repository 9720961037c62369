/** Identifiers and records the chain hands out. Hashes are lowercase hex, shard ids carry their tag bit. */

/** A validator's signature of a block; `nodeIdShort` is hex. */
export type BlockSignature = { nodeIdShort: string; signature: Uint8Array };

/** tonNode.blockIdExt: a block with its root and file hashes. */
export type BlockIdExt = { workchain: number; shard: bigint; seqno: number; rootHash: string; fileHash: string };

/** A block by position; `rootHash`, when given, must match. */
export type BlockRef = { workchain: number; shard: bigint; seqno: number; rootHash?: string };

/** What a liteserver needs of a block besides its bytes. */
export type BlockHeader = {
  id: BlockIdExt;
  startLt: bigint;
  endLt: bigint;
  genUtime: number;
  keyBlock: boolean;
  /** Masterchain seqno of the round that produced the block (the masterchain block committing it). */
  mcSeqno: number;
  prevRefs: BlockIdExt[];
  /** Shard blocks only: the masterchain block they refer to. */
  masterRef?: BlockIdExt;
  /** The (synthetic) shard state hashes of the block's state update. */
  stateHash: { old: string; new: string };
};

/** One transaction as raw bytes plus its index fields. */
export type TxRecord = {
  /** Raw form, e.g. `0:ab12...`. */
  account: string;
  workchain: number;
  /** The account id (256-bit hex). */
  addressHash: string;
  lt: bigint;
  hash: string;
  /** BoC of the Transaction cell. */
  boc: Uint8Array;
  prevLt: bigint;
  prevHash: string;
  now: number;
  block: BlockIdExt;
};

export type StoredBlock = BlockHeader & {
  /** BoC of the Block (its SHA-256 is `id.fileHash`). */
  boc: Uint8Array;
  /** Masterchain blocks of a chain with validators: each validator's ed25519 signature of TL ton.blockId{root_hash, file_hash}. */
  signatures?: BlockSignature[];
  /** Sorted by account id, then lt (the order of ShardAccountBlocks). */
  transactions: TxRecord[];
};

/** Logger-like sink; `@tonstream/runtime`'s Logger fits. */
export type LocalnetLogger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

export const silentLogger: LocalnetLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
