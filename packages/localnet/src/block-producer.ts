import { hash as oneShotHash } from 'node:crypto';
import { buildBlock, type Cell, type ExtBlkRef, type ShardDescrDesc } from '@tonstream/block';
import type { ExecutedTx } from './execution.js';
import { MASTERCHAIN } from './shards.js';
import type { BlockHeader, BlockIdExt, StoredBlock, TxRecord } from './types.js';

/** The last block of a shard chain (or its zerostate, seqno 0): what the next block links to. */
export type ChainTip = { id: BlockIdExt; endLt: bigint; stateHash: string };

export type BlockInput = {
  globalId: number;
  workchain: number;
  shard: bigint;
  seqno: number;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  prev: ChainTip;
  /** Shard blocks: the masterchain block they refer to. */
  master?: ChainTip;
  txs: ExecutedTx[];
  /** 32 bytes; written as the block's rand_seed. */
  randSeed: Uint8Array;
  createdBy: string;
  /** Masterchain seqno of this round. */
  mcSeqno: number;
  minRefMcSeqno: number;
  prevKeyBlockSeqno: number;
  genSoftware?: { version: number; capabilities: bigint };
  /** The validator set that signs the block: gen_validator_list_hash_short and gen_catchain_seqno. */
  validatorSet?: { hashShort: number; ccSeqno: number };
  /** Masterchain blocks: the shard blocks they commit, and for a key block the config. */
  mc?: { shards: BlockHeader[]; config?: { configAddr: string; params: Cell } };
};

/** Builds a block with real TL-B around executed transactions; returns it as history stores it. */
export function produceBlock(d: BlockInput): { block: StoredBlock; tip: ChainTip } {
  const isMaster = d.workchain === MASTERCHAIN;
  const keyBlock = isMaster && d.mc?.config !== undefined;
  const newStateHash = nextStateHash(d.prev.stateHash, d);
  const built = buildBlock({
    globalId: d.globalId,
    info: {
      shard: { workchain: d.workchain, shard: d.shard },
      seqno: d.seqno,
      genUtime: d.genUtime,
      startLt: d.startLt,
      endLt: d.endLt,
      keyBlock,
      minRefMcSeqno: d.minRefMcSeqno,
      prevKeyBlockSeqno: d.prevKeyBlockSeqno,
      genSoftware: d.genSoftware,
      genValidatorListHashShort: d.validatorSet?.hashShort,
      genCatchainSeqno: d.validatorSet?.ccSeqno,
      masterRef: d.master ? extRef(d.master) : undefined,
      prevRefs: [extRef(d.prev)],
    },
    stateUpdate: { oldHash: d.prev.stateHash, newHash: newStateHash },
    transactions: d.txs.map((t) => t.cell),
    randSeed: Buffer.from(d.randSeed).toString('hex'),
    createdBy: d.createdBy,
    mcExtra: isMaster ? { shards: (d.mc?.shards ?? []).map((s) => shardDescr(s, d.mcSeqno)), config: d.mc?.config } : undefined,
  });
  const id: BlockIdExt = { workchain: d.workchain, shard: d.shard, seqno: d.seqno, rootHash: built.rootHash, fileHash: built.fileHash };
  const transactions: TxRecord[] = d.txs
    .map((t) => ({
      account: `${t.workchain}:${t.addressHash}`,
      workchain: t.workchain,
      addressHash: t.addressHash,
      lt: t.lt,
      hash: t.hash,
      boc: t.boc,
      prevLt: t.prevLt,
      prevHash: t.prevHash,
      now: t.now,
      block: id,
    }))
    .sort((a, b) => (a.addressHash < b.addressHash ? -1 : a.addressHash > b.addressHash ? 1 : a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
  const block: StoredBlock = {
    id,
    startLt: d.startLt,
    endLt: d.endLt,
    genUtime: d.genUtime,
    keyBlock,
    mcSeqno: d.mcSeqno,
    prevRefs: [d.prev.id],
    masterRef: d.master?.id,
    stateHash: { old: d.prev.stateHash, new: newStateHash },
    boc: built.boc,
    transactions,
  };
  return { block, tip: { id, endLt: d.endLt, stateHash: newStateHash } };
}

/** A made-up genesis block id for a chain: seqno 0 with hashes derived from the seed. */
export function zerostateTip(seed: string, workchain: number, shard: bigint): ChainTip {
  const tag = `tonstream-localnet:${seed}:${workchain}:${shard.toString(16)}`;
  const rootHash = oneShotHash('sha256', `${tag}:root`, 'hex');
  return {
    id: { workchain, shard, seqno: 0, rootHash, fileHash: oneShotHash('sha256', `${tag}:file`, 'hex') },
    endLt: 0n,
    stateHash: oneShotHash('sha256', `${tag}:state`, 'hex'),
  };
}

/**
 * The shard state is not built (see README); its hash is a chain over the previous hash, the block
 * position and the transactions, so every block has a distinct, reproducible state hash.
 */
function nextStateHash(prev: string, d: BlockInput): string {
  const h = [prev, d.workchain, d.shard.toString(16), d.seqno, d.genUtime, d.endLt, ...d.txs.map((t) => t.hash)].join(':');
  return oneShotHash('sha256', h, 'hex');
}

function extRef(tip: ChainTip): ExtBlkRef {
  return { endLt: tip.endLt, seqno: tip.id.seqno, rootHash: tip.id.rootHash, fileHash: tip.id.fileHash };
}

function shardDescr(s: BlockHeader, mcSeqno: number): ShardDescrDesc {
  return {
    workchain: s.id.workchain,
    shard: s.id.shard,
    seqno: s.id.seqno,
    regMcSeqno: mcSeqno,
    startLt: s.startLt,
    endLt: s.endLt,
    rootHash: s.id.rootHash,
    fileHash: s.id.fileHash,
    genUtime: s.genUtime,
    minRefMcSeqno: Math.max(0, mcSeqno - 1),
  };
}
