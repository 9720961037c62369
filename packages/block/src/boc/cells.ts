import { hash as oneShotHash } from 'node:crypto';
import { BocError } from './errors.js';

/** Exotic cell types (first data byte); 0 marks an ordinary cell. */
export const ORDINARY = 0;
export const PRUNED_BRANCH = 1;
export const LIBRARY = 2;
export const MERKLE_PROOF = 3;
export const MERKLE_UPDATE = 4;

const SCRATCH = new Uint8Array(2 + 128 + 4 * (2 + 32));

/**
 * A bag of cells held as flat typed arrays over the original bytes: no per-cell objects and no
 * copies of cell data. Cell `i` refers only to cells with larger indices (the BoC's topological
 * order, checked on load), which rules out cycles.
 *
 * Hashes are computed on demand and memoized: `hash(i)` hashes the subtree of `i` only. A block's
 * Merkle state update holds most of its cells, and an indexer that knows the root hash already
 * (from the masterchain) never needs their hashes. `hashAll()` computes and checks everything.
 */
export class CellTable {
  readonly count: number;
  readonly roots: number[];
  /** Byte offset of each cell's data within `bytes`. */
  readonly dataOffset: Uint32Array;
  readonly bitLength: Uint16Array;
  readonly refCount: Uint8Array;
  /** Four slots per cell. */
  readonly refs: Uint32Array;
  /** 0 for ordinary cells, else the exotic type. */
  readonly special: Uint8Array;
  /** As claimed by the BoC; checked against the cell's contents when it is hashed. */
  readonly levelMask: Uint8Array;
  private readonly d2: Uint8Array;
  /** First hash slot of each cell; a cell has popcount(levelMask) + 1 slots. */
  private readonly slot: Uint32Array;
  private readonly slotHashes: Uint8Array;
  private readonly slotDepths: Uint16Array;
  private readonly hashed: Uint8Array;

  constructor(
    readonly bytes: Uint8Array,
    cells: { count: number; roots: number[]; d2: Uint8Array; dataOffset: Uint32Array; bitLength: Uint16Array; refCount: Uint8Array; refs: Uint32Array; special: Uint8Array; levelMask: Uint8Array },
  ) {
    this.count = cells.count;
    this.roots = cells.roots;
    this.d2 = cells.d2;
    this.dataOffset = cells.dataOffset;
    this.bitLength = cells.bitLength;
    this.refCount = cells.refCount;
    this.refs = cells.refs;
    this.special = cells.special;
    this.levelMask = cells.levelMask;
    this.slot = new Uint32Array(this.count);
    let slots = 0;
    for (let i = 0; i < this.count; i++) {
      this.slot[i] = slots;
      slots += popcount(this.levelMask[i]) + 1;
    }
    this.slotHashes = new Uint8Array(slots * 32);
    this.slotDepths = new Uint16Array(slots);
    this.hashed = new Uint8Array(this.count);
  }

  /** Hash of cell `i` at `level` (default: the representation hash). A view; do not modify. */
  hash(i: number, level = 3): Uint8Array {
    if (!this.hashed[i]) this.ensureHashed(i);
    const s = (this.slot[i] + hashIndex(this.levelMask[i], level)) * 32;
    return this.slotHashes.subarray(s, s + 32);
  }

  depth(i: number, level = 3): number {
    if (!this.hashed[i]) this.ensureHashed(i);
    return this.slotDepths[this.slot[i] + hashIndex(this.levelMask[i], level)];
  }

  hashHex(i: number): string {
    if (!this.hashed[i]) this.ensureHashed(i);
    const s = (this.slot[i] + popcount(this.levelMask[i])) * 32;
    return Buffer.from(this.slotHashes.buffer, this.slotHashes.byteOffset + s, 32).toString('hex');
  }

  /** Computes (and so validates) every cell's hashes. */
  hashAll(): void {
    for (let i = this.count - 1; i >= 0; i--) if (!this.hashed[i]) this.hashOne(i);
  }

  /** Hashes the unhashed part of the subtree of `root`, children first, without recursion (chains can be long). */
  private ensureHashed(root: number): void {
    const stack = [root];
    while (stack.length > 0) {
      const i = stack[stack.length - 1];
      if (this.hashed[i]) {
        stack.pop();
        continue;
      }
      let pending = false;
      for (let r = 0; r < this.refCount[i]; r++) {
        const c = this.refs[i * 4 + r];
        if (!this.hashed[c]) {
          stack.push(c);
          pending = true;
        }
      }
      if (!pending) {
        stack.pop();
        this.hashOne(i);
      }
    }
  }

  /** Hashes cell `i`, whose children are hashed already. */
  private hashOne(i: number): void {
    const mask = this.checkLevelMask(i);
    const n = this.refCount[i];
    const special = this.special[i];
    const merkle = special === MERKLE_PROOF || special === MERKLE_UPDATE ? 1 : 0;
    const off = this.dataOffset[i];
    const d2 = this.d2[i];
    const len = (d2 >> 1) + (d2 & 1);
    const slot0 = this.slot[i];
    const hashCount = popcount(mask) + 1;
    let first = 0;
    if (special === PRUNED_BRANCH) {
      // A pruned branch carries the hashes and depths of its lower levels in its data.
      first = hashCount - 1;
      this.slotHashes.set(this.bytes.subarray(off + 2, off + 2 + first * 32), slot0 * 32);
      for (let h = 0; h < first; h++) {
        const dp = off + 2 + first * 32 + h * 2;
        this.slotDepths[slot0 + h] = (this.bytes[dp] << 8) | this.bytes[dp + 1];
      }
    }
    const scratch = SCRATCH;
    const refBase = i * 4;
    let h = 0;
    for (let level = 0; level <= 3; level++) {
      if (level > 0 && !(mask & (1 << (level - 1)))) continue;
      if (h < first) {
        h++;
        continue;
      }
      let p = 0;
      scratch[p++] = n + (special ? 8 : 0) + 32 * (mask & ((1 << level) - 1));
      scratch[p++] = d2;
      if (h === first) {
        for (let k = 0; k < len; k++) scratch[p++] = this.bytes[off + k];
      } else {
        scratch.set(this.slotHashes.subarray((slot0 + h - 1) * 32, (slot0 + h) * 32), p);
        p += 32;
      }
      const childLevel = level + merkle;
      let depth = 0;
      for (let r = 0; r < n; r++) {
        const c = this.refs[refBase + r];
        const d = this.slotDepths[this.slot[c] + hashIndex(this.levelMask[c], childLevel)];
        if (d >= depth) depth = d + 1;
        scratch[p++] = d >> 8;
        scratch[p++] = d & 0xff;
      }
      for (let r = 0; r < n; r++) {
        const c = this.refs[refBase + r];
        const s = (this.slot[c] + hashIndex(this.levelMask[c], childLevel)) * 32;
        for (let k = 0; k < 32; k++) scratch[p++] = this.slotHashes[s + k];
      }
      if (depth > 1024) throw new BocError(`cell ${i} is deeper than 1024`);
      this.slotHashes.set(oneShotHash('sha256', scratch.subarray(0, p), 'buffer'), (slot0 + h) * 32);
      this.slotDepths[slot0 + h] = depth;
      h++;
    }
    this.hashed[i] = 1;
  }

  /** Checks an exotic cell's layout and that the BoC's level mask is the one its children imply. */
  private checkLevelMask(i: number): number {
    const n = this.refCount[i];
    const special = this.special[i];
    const bits = this.bitLength[i];
    const off = this.dataOffset[i];
    const child = (r: number) => this.levelMask[this.refs[i * 4 + r]];
    let mask = 0;
    switch (special) {
      case ORDINARY:
        for (let r = 0; r < n; r++) mask |= child(r);
        break;
      case PRUNED_BRANCH:
        mask = bits >= 16 ? this.bytes[off + 1] : 0;
        if (n !== 0 || mask === 0 || mask > 7 || bits !== 16 + popcount(mask) * (256 + 16)) {
          throw new BocError(`cell ${i}: malformed pruned branch`);
        }
        break;
      case LIBRARY:
        if (n !== 0 || bits !== 8 + 256) throw new BocError(`cell ${i}: malformed library cell`);
        break;
      case MERKLE_PROOF:
        if (n !== 1 || bits !== 8 + 256 + 16) throw new BocError(`cell ${i}: malformed Merkle proof`);
        mask = child(0) >> 1;
        this.checkMerkleChild(i, 0, off + 1, off + 33);
        break;
      case MERKLE_UPDATE:
        if (n !== 2 || bits !== 8 + 2 * (256 + 16)) throw new BocError(`cell ${i}: malformed Merkle update`);
        mask = (child(0) | child(1)) >> 1;
        this.checkMerkleChild(i, 0, off + 1, off + 65);
        this.checkMerkleChild(i, 1, off + 33, off + 67);
        break;
      default:
        throw new BocError(`cell ${i}: unknown exotic cell type ${special}`);
    }
    if (mask !== this.levelMask[i]) {
      throw new BocError(`cell ${i}: level mask ${this.levelMask[i]} in the BoC, ${mask} from its contents`);
    }
    return mask;
  }

  /** A Merkle cell stores the level-0 hash and depth of each child; both must match the child. */
  private checkMerkleChild(i: number, r: number, hashOffset: number, depthOffset: number): void {
    const c = this.refs[i * 4 + r];
    const expected = this.hash(c, 0);
    for (let k = 0; k < 32; k++) {
      if (this.bytes[hashOffset + k] !== expected[k]) throw new BocError(`cell ${i}: Merkle hash of child ${r} does not match`);
    }
    if (((this.bytes[depthOffset] << 8) | this.bytes[depthOffset + 1]) !== this.depth(c, 0)) {
      throw new BocError(`cell ${i}: Merkle depth of child ${r} does not match`);
    }
  }
}

function hashIndex(mask: number, level: number): number {
  return popcount(mask & ((1 << level) - 1));
}

export function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}
