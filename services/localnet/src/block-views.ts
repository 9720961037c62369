/**
 * What liteserver answers derive from the chain's blocks, computed once per block: the block as
 * cells, its header proof, the ShardHashes of a masterchain block, the config as cells.
 */
import { hash as oneShotHash } from 'node:crypto';
import { type Cell, cellFromBoc, cellToBoc, type ExtBlkRef } from '@tonstream/block';
import { type BlockIdExt, type Chain, MASTERCHAIN, ROOT_SHARD, type StoredBlock } from '@tonstream/localnet';
import { createLru } from './lru.js';
import { blockGlobalId, blockHeaderProof, type McStateExtraInput, shardHashesCell, shardHashesProof, shardHashesRoot, type StateHeader } from './proofs.js';

/** Blocks kept as cells: enough for the answers about the last rounds that clients ask most. */
const CELL_CACHE_BLOCKS = 64;
/** Small derived answers (header proofs, ShardHashes) of about the chain's default 256 kept rounds × 3 blocks. */
const DERIVED_CACHE_ENTRIES = 1024;

export type BlockViews = {
  cell(b: StoredBlock): Cell;
  /** BoC of the block's header proof. */
  headerProof(b: StoredBlock): Buffer;
  /** A masterchain block's ShardHashes (BoC) and the proof that the block commits them (BoC). */
  shardHashes(mc: StoredBlock): { data: Buffer; proof: Buffer; root: Cell | undefined };
  /** What the state after the block says about itself. */
  stateHeader(b: StoredBlock): StateHeader;
  /** The McStateExtra parts after a masterchain block. */
  mcStateExtra(mc: StoredBlock): McStateExtraInput;
  /** The masterchain block that committed a block (itself for masterchain blocks). */
  masterOf(b: StoredBlock): StoredBlock | undefined;
};

export function createBlockViews(chain: Chain): BlockViews {
  const cells = createLru<string, Cell>(CELL_CACHE_BLOCKS);
  const headers = createLru<string, Buffer>(DERIVED_CACHE_ENTRIES);
  const shardHashes = createLru<string, { data: Buffer; proof: Buffer; root: Cell | undefined }>(DERIVED_CACHE_ENTRIES);
  let config: { digest: string; cell: Cell } | undefined;

  const cell = (b: StoredBlock) => cells.get(b.id.rootHash, () => cellFromBoc(b.boc));
  const extRef = (id: BlockIdExt): ExtBlkRef => ({ endLt: chain.getBlock(id)?.endLt ?? 0n, seqno: id.seqno, rootHash: id.rootHash, fileHash: id.fileHash });
  const configCell = () => {
    const boc = chain.config().boc;
    const digest = oneShotHash('sha256', boc, 'hex');
    if (config?.digest !== digest) config = { digest, cell: cellFromBoc(boc) };
    return config.cell;
  };

  return {
    cell,
    headerProof: (b) => headers.get(b.id.rootHash, () => Buffer.from(cellToBoc(blockHeaderProof(cell(b))))),
    shardHashes: (mc) =>
      shardHashes.get(mc.id.rootHash, () => {
        const root = shardHashesRoot(cell(mc));
        return { root, data: Buffer.from(cellToBoc(shardHashesCell(root))), proof: Buffer.from(cellToBoc(shardHashesProof(cell(mc)))) };
      }),
    stateHeader: (b) => ({
      globalId: blockGlobalId(cell(b)),
      workchain: b.id.workchain,
      shard: b.id.shard,
      seqno: b.id.seqno,
      genUtime: b.genUtime,
      genLt: b.endLt,
      minRefMcSeqno: Math.max(0, b.mcSeqno - 1),
      masterRef: b.masterRef && extRef(b.masterRef),
    }),
    mcStateExtra(mc) {
      const { configAddr, keyBlock } = chain.config();
      const vset = chain.validatorSet();
      return { shardHashes: shardHashesRoot(cell(mc)), configAddr, config: configCell(), lastKeyBlock: keyBlock && extRef(keyBlock), validatorInfo: vset && { hashShort: vset.hashShort, ccSeqno: vset.ccSeqno } };
    },
    masterOf: (b) => (b.id.workchain === MASTERCHAIN ? b : chain.lookupBlock(MASTERCHAIN, ROOT_SHARD, { seqno: b.mcSeqno })),
  };
}
