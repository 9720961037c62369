import { BitReader, BitString, Cell, CellType, Slice } from '@ton/core';
// Not in @ton/core's index: the BoC header reader and the hash/depth calculator its Cell runs.
import { parseBoc } from '@ton/core/dist/boc/cell/serialization.js';
import { wonderCalculator } from '@ton/core/dist/boc/cell/wonderCalculator.js';

/**
 * A BoC (base64) as @ton/core cells whose hashes and depths are computed on first use. Cell.fromBoc
 * hashes every cell as it builds it (sha256 in JavaScript); the classifier reads message bodies and
 * payloads bit by bit and asks for a hash only now and then (a ghost message's id, toBoc of a
 * payload), so that hashing was a third of its time on mainnet traffic. The cells are instances of
 * Cell with the same bits, refs, slices, hashes and BoC; a BoC holding an exotic cell (never in a
 * message body in practice) goes through Cell.fromBoc.
 */
export function cellFromBase64(boc: string): Cell {
  return cellsFromBoc(Buffer.from(boc, 'base64'))[0];
}

/** The first root of a BoC, as `Cell.fromBoc(src)[0]`. */
export function cellFromBoc(src: Buffer): Cell {
  return cellsFromBoc(src)[0];
}

/** Every root of a BoC, as `Cell.fromBoc(src)`. */
export function cellsFromBoc(src: Buffer): Cell[] {
  const boc = parseBoc(src);
  const reader = new BitReader(new BitString(boc.cellData, 0, boc.cellData.length * 8));
  const raw: { bits: BitString; refs: number[] }[] = [];
  for (let i = 0; i < boc.cells; i++) {
    const cell = readCell(reader, boc.size);
    if (cell === null) return Cell.fromBoc(src);
    raw.push(cell);
  }
  const built: Cell[] = new Array(raw.length);
  for (let i = raw.length - 1; i >= 0; i--) {
    const refs = raw[i].refs.map((r) => {
      // Refs point forward only (as Cell.fromBoc requires).
      if (r <= i || built[r] === undefined) throw new Error('Invalid BOC file');
      return built[r];
    });
    built[i] = lazyCell(raw[i].bits, refs);
  }
  return boc.root.map((r) => built[r]);
}

/** One cell's bits and ref indexes, as @ton/core's reader reads them; null for an exotic cell. */
function readCell(reader: BitReader, sizeBytes: number): { bits: BitString; refs: number[] } | null {
  const d1 = reader.loadUint(8);
  if (d1 & 8) return null;
  const refsCount = d1 % 8;
  const d2 = reader.loadUint(8);
  const dataBytes = Math.ceil(d2 / 2);
  if (d1 & 16) {
    // Stored hashes and depths (one of each per level): skipped, as Cell.fromBoc does.
    const count = hashCount(d1 >> 5);
    reader.skip(count * 32 * 8 + count * 2 * 8);
  }
  let bits = BitString.EMPTY;
  if (dataBytes > 0) bits = d2 % 2 ? reader.loadPaddedBits(dataBytes * 8) : reader.loadBits(dataBytes * 8);
  const refs: number[] = [];
  for (let i = 0; i < refsCount; i++) refs.push(reader.loadUint(sizeBytes * 8));
  return { bits, refs };
}

function hashCount(levelMask: number): number {
  let n = 1;
  for (let m = levelMask & 7; m > 0; m >>= 1) n += m & 1;
  return n;
}

type Wonders = ReturnType<typeof wonderCalculator>;

/**
 * An ordinary cell with mask, depths and hashes computed on first use: what Cell's constructor sets
 * as own fields and closures lives here once, on a prototype whose parent is Cell.prototype (so
 * `instanceof Cell`, toBoc, toString and the rest are Cell's own).
 */
class LazyCell {
  readonly type = CellType.Ordinary;
  private wonders: Wonders | undefined;

  constructor(
    readonly bits: BitString,
    readonly refs: Cell[],
  ) {}

  private computed(): Wonders {
    return (this.wonders ??= wonderCalculator(CellType.Ordinary, this.bits, this.refs));
  }

  get mask() {
    return this.computed().mask;
  }

  get _hashes() {
    return this.computed().hashes;
  }

  get _depths() {
    return this.computed().depths;
  }

  beginParse(allowExotic = false): Slice {
    void allowExotic;
    return new Slice(new BitReader(this.bits), this.refs);
  }

  hash(level = 3): Buffer {
    const h = this.computed().hashes;
    return h[Math.min(h.length - 1, level)];
  }

  depth(level = 3): number {
    const d = this.computed().depths;
    return d[Math.min(d.length - 1, level)];
  }

  level(): number {
    return this.computed().mask.level;
  }

  equals(other: Cell): boolean {
    return this.hash().equals(other.hash());
  }
}
Object.setPrototypeOf(LazyCell.prototype, Cell.prototype);

function lazyCell(bits: BitString, refs: Cell[]): Cell {
  if (refs.length > 4) throw new Error('Invalid number of references');
  if (bits.length > 1023) throw new Error(`Bits overflow: ${bits.length} > 1023`);
  return new LazyCell(bits, Object.freeze(refs) as Cell[]) as unknown as Cell;
}
