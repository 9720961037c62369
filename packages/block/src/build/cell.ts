import { hash as oneShotHash } from 'node:crypto';
import { LIBRARY, MERKLE_PROOF, MERKLE_UPDATE, ORDINARY, popcount, PRUNED_BRANCH } from '../boc/cells.js';
import { BuildError } from './errors.js';

/** 0 ordinary, 1 pruned branch, 2 library, 3 Merkle proof, 4 Merkle update. */
export type CellType = 0 | 1 | 2 | 3 | 4;

export const MAX_CELL_BITS = 1023;
export const MAX_CELL_REFS = 4;
/** Cells deeper than this are invalid in TON (and would make hashing recurse too far). */
export const MAX_CELL_DEPTH = 1024;

/**
 * An immutable cell: `bits` bits of `data` (MSB first, the bits past `bits` are zero), up to four
 * references and an exotic type. Hashes and depths of every level are computed on first use with the
 * same rules as `CellTable` (pruned branches carry their lower hashes; Merkle cells hash their
 * children one level up).
 */
export class Cell {
  readonly data: Uint8Array;
  readonly bits: number;
  readonly refs: readonly Cell[];
  readonly type: CellType;
  readonly levelMask: number;
  /** Height of the tree below this cell; equals the representation depth. */
  private readonly height: number;
  private hashes?: Uint8Array;
  private depths?: Uint16Array;
  private hex?: string;

  constructor(data: Uint8Array, bits: number, refs: readonly Cell[] = [], type: CellType = ORDINARY) {
    if (!Number.isInteger(bits) || bits < 0 || bits > MAX_CELL_BITS) throw new BuildError(`a cell holds 0..${MAX_CELL_BITS} bits, not ${bits}`);
    if (refs.length > MAX_CELL_REFS) throw new BuildError(`a cell holds at most ${MAX_CELL_REFS} references, not ${refs.length}`);
    const len = (bits + 7) >> 3;
    if (data.length < len) throw new BuildError(`${bits} bits need ${len} bytes of data, got ${data.length}`);
    this.data = data.slice(0, len);
    if (bits & 7) this.data[len - 1] &= 0xff << (8 - (bits & 7));
    this.bits = bits;
    this.refs = Object.freeze(refs.slice());
    this.type = type;
    let height = 0;
    for (const r of refs) if (r.height + 1 > height) height = r.height + 1;
    if (height > MAX_CELL_DEPTH) throw new BuildError(`cell depth ${height} exceeds ${MAX_CELL_DEPTH}`);
    this.height = height;
    this.levelMask = levelMaskOf(this);
  }

  /** Highest level with a hash of its own: 0 for cells without pruned branches below them. */
  get level(): number {
    return 32 - Math.clz32(this.levelMask);
  }

  get isExotic(): boolean {
    return this.type !== ORDINARY;
  }

  /** Hash at `level` (default: the representation hash). A view into the cell's cache; do not modify. */
  hash(level = 3): Uint8Array {
    if (!this.hashes) this.computeHashes();
    const h = hashIndex(this.levelMask, level) * 32;
    return this.hashes!.subarray(h, h + 32);
  }

  depth(level = 3): number {
    if (level >= 3 || this.levelMask === 0) return this.height;
    if (!this.depths) this.computeHashes();
    return this.depths![hashIndex(this.levelMask, level)];
  }

  /** Representation hash as lowercase hex. */
  hashHex(): string {
    this.hex ??= Buffer.from(this.hash()).toString('hex');
    return this.hex;
  }

  equals(other: Cell): boolean {
    return this === other || this.hashHex() === other.hashHex();
  }

  /** The descriptor byte d2: ceil(bits / 8) + floor(bits / 8). */
  get d2(): number {
    return (this.bits >> 3) + ((this.bits + 7) >> 3);
  }

  /** The data bytes as serialized: the last partial byte carries the completion tag. */
  paddedData(): Uint8Array {
    const out = this.data.slice();
    if (this.bits & 7) out[out.length - 1] |= 0x80 >> (this.bits & 7);
    return out;
  }

  private computeHashes(): void {
    const mask = this.levelMask;
    const count = popcount(mask) + 1;
    const hashes = new Uint8Array(count * 32);
    const depths = new Uint16Array(count);
    let first = 0;
    if (this.type === PRUNED_BRANCH) {
      // The pruned cell's own lower-level hashes and depths follow its type and mask bytes.
      first = count - 1;
      hashes.set(this.data.subarray(2, 2 + first * 32));
      for (let h = 0; h < first; h++) depths[h] = (this.data[2 + first * 32 + 2 * h] << 8) | this.data[3 + first * 32 + 2 * h];
    }
    const merkle = this.type === MERKLE_PROOF || this.type === MERKLE_UPDATE ? 1 : 0;
    if (merkle) this.checkMerkleChildren();
    const n = this.refs.length;
    const padded = this.paddedData();
    const buf = new Uint8Array(2 + Math.max(padded.length, 32) + n * 34);
    let h = 0;
    for (let level = 0; level <= 3; level++) {
      if (level > 0 && !(mask & (1 << (level - 1)))) continue;
      if (h < first) {
        h++;
        continue;
      }
      let p = 0;
      buf[p++] = n + (this.type !== ORDINARY ? 8 : 0) + 32 * (mask & ((1 << level) - 1));
      buf[p++] = this.d2;
      if (h === first) {
        buf.set(padded, p);
        p += padded.length;
      } else {
        buf.set(hashes.subarray((h - 1) * 32, h * 32), p);
        p += 32;
      }
      let depth = 0;
      for (const r of this.refs) {
        const d = r.depth(level + merkle);
        if (d + 1 > depth) depth = d + 1;
        buf[p++] = d >> 8;
        buf[p++] = d & 0xff;
      }
      for (const r of this.refs) {
        buf.set(r.hash(level + merkle), p);
        p += 32;
      }
      hashes.set(oneShotHash('sha256', buf.subarray(0, p), 'buffer'), h * 32);
      depths[h] = depth;
      h++;
    }
    this.hashes = hashes;
    this.depths = depths;
  }

  /** A Merkle cell stores each child's level-0 hash and depth; they must match the child. */
  private checkMerkleChildren(): void {
    this.refs.forEach((child, r) => {
      const hashAt = 1 + 32 * r;
      const depthAt = 1 + 32 * this.refs.length + 2 * r;
      const stored = this.data.subarray(hashAt, hashAt + 32);
      if (!Buffer.from(stored).equals(child.hash(0))) throw new BuildError(`Merkle cell: stored hash of child ${r} does not match the child`);
      const depth = (this.data[depthAt] << 8) | this.data[depthAt + 1];
      if (depth !== child.depth(0)) throw new BuildError(`Merkle cell: stored depth ${depth} of child ${r}, the child has ${child.depth(0)}`);
    });
  }
}

/** Checks an exotic cell's layout and derives the level mask from it and the children. */
function levelMaskOf(c: Cell): number {
  const n = c.refs.length;
  const childMask = (r: number) => c.refs[r].levelMask;
  if (c.type === ORDINARY) {
    let mask = 0;
    for (let r = 0; r < n; r++) mask |= childMask(r);
    return mask;
  }
  if (c.bits < 8 || c.data[0] !== c.type) throw new BuildError(`exotic cell of type ${c.type} must start with its type byte`);
  switch (c.type) {
    case PRUNED_BRANCH: {
      const mask = c.bits >= 16 ? c.data[1] : 0;
      if (n !== 0 || mask === 0 || mask > 7 || c.bits !== 16 + popcount(mask) * (256 + 16)) throw new BuildError('malformed pruned branch');
      return mask;
    }
    case LIBRARY:
      if (n !== 0 || c.bits !== 8 + 256) throw new BuildError('malformed library cell');
      return 0;
    case MERKLE_PROOF:
      if (n !== 1 || c.bits !== 8 + 256 + 16) throw new BuildError('malformed Merkle proof');
      return childMask(0) >> 1;
    case MERKLE_UPDATE:
      if (n !== 2 || c.bits !== 8 + 2 * (256 + 16)) throw new BuildError('malformed Merkle update');
      return (childMask(0) | childMask(1)) >> 1;
    default:
      throw new BuildError(`unknown exotic cell type ${c.type as number}`);
  }
}

function hashIndex(mask: number, level: number): number {
  return popcount(mask & ((1 << level) - 1));
}
