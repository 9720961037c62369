import { MERKLE_PROOF, MERKLE_UPDATE, PRUNED_BRANCH } from '../boc/cells.js';
import { Builder } from './builder.js';
import type { Cell } from './cell.js';

/**
 * A level-1 pruned branch standing in for a level-0 cell with this hash and depth:
 *   pruned branch: type 1, level mask 1, hash:bits256, depth:uint16
 * Its level-0 hash and depth are the stored ones.
 */
export function prunedBranch(hash: string | Uint8Array, depth = 0): Cell {
  return new Builder().storeUint(PRUNED_BRANCH, 8).storeUint(1, 8).storeHash(hash).storeUint(depth, 16).endCell({ special: true });
}

/** A pruned branch replacing `cell` (which must have level 0). */
export function prune(cell: Cell): Cell {
  return prunedBranch(cell.hash(0), cell.depth(0));
}

/** !merkle_proof#03 {X:Type} virtual_hash:bits256 depth:uint16 virtual_root:^X = MERKLE_PROOF X; */
export function merkleProof(root: Cell): Cell {
  return new Builder().storeUint(MERKLE_PROOF, 8).storeHash(root.hash(0)).storeUint(root.depth(0), 16).storeRef(root).endCell({ special: true });
}

/**
 * !merkle_update#04 {X:Type} old_hash:bits256 new_hash:bits256 old_depth:uint16 new_depth:uint16
 *   old:^X new:^X = MERKLE_UPDATE X;
 * The stored hashes and depths are the children's level-0 ones.
 */
export function merkleUpdate(oldRoot: Cell, newRoot: Cell): Cell {
  return new Builder()
    .storeUint(MERKLE_UPDATE, 8)
    .storeHash(oldRoot.hash(0))
    .storeHash(newRoot.hash(0))
    .storeUint(oldRoot.depth(0), 16)
    .storeUint(newRoot.depth(0), 16)
    .storeRef(oldRoot)
    .storeRef(newRoot)
    .endCell({ special: true });
}

/** A Merkle update between two states known only by hash: both sides pruned branches. */
export function prunedStateUpdate(oldHash: string, newHash: string, oldDepth = 0, newDepth = 0): Cell {
  return merkleUpdate(prunedBranch(oldHash, oldDepth), prunedBranch(newHash, newDepth));
}
