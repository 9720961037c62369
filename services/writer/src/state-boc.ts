/**
 * Shard states read in place: a ShardStateUnsplit BoC (a liteserver's getState answer in memory, or a
 * file an operator dumped from a node, several GB on mainnet) is read by position, cell by cell, and
 * its account dictionary walked in key order without building the cell table of the whole state.
 *
 * Memory: a file is read in pages (an LRU of `pages` x `pageBytes`, 64 MB by default); a BoC with an
 * index (what a node writes) is addressed through it, one without is scanned once and every 16th
 * cell's offset kept (half a byte per cell). A walk holds the path to its position only; an account is
 * cut out as a BoC of its own (its cells alone) when its record is made.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { loadShardHashes, parseBoc, type RawCell, type ShardDescr, Slice, writeBoc } from '@tonstream/block';
import { TonstreamError } from '@tonstream/errors';

export class StateBocError extends TonstreamError {
  readonly code = 'STATE_BOC';
}

/** Bytes by position: a BoC in memory, or a file read in pages. */
export type ByteSource = {
  readonly size: number;
  readonly name: string;
  /** `length` bytes from `offset`: a view, not to be modified. */
  read(offset: number, length: number): Uint8Array;
  close(): void;
};

export function memorySource(bytes: Uint8Array, name = 'memory'): ByteSource {
  return {
    size: bytes.length,
    name,
    read(offset, length) {
      if (offset + length > bytes.length) throw new StateBocError(`${name}: truncated: need ${offset + length} bytes, have ${bytes.length}`);
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}

export type FileSourceOptions = {
  /** @default 1 MiB */
  pageBytes?: number;
  /** Pages kept (least recently used dropped). @default 64 */
  pages?: number;
};

export function fileSource(path: string, options: FileSourceOptions = {}): ByteSource {
  const pageBytes = options.pageBytes ?? 1 << 20;
  const maxPages = options.pages ?? 64;
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  const pages = new Map<number, Buffer>();
  // Reads cluster: the page of the last read is tried before the LRU (whose reordering costs).
  let lastN = -1;
  let lastPage: Buffer | undefined;
  const page = (n: number): Buffer => {
    if (n === lastN) return lastPage!;
    let p = pages.get(n);
    if (p) {
      pages.delete(n);
      pages.set(n, p);
      lastN = n;
      return (lastPage = p);
    }
    const start = n * pageBytes;
    p = Buffer.allocUnsafe(Math.min(pageBytes, size - start));
    for (let got = 0; got < p.length; ) {
      const k = readSync(fd, p, got, p.length - got, start + got);
      if (k === 0) throw new StateBocError(`${path}: unexpected end of file at ${start + got}`);
      got += k;
    }
    pages.set(n, p);
    if (pages.size > maxPages) pages.delete(pages.keys().next().value!);
    lastN = n;
    return (lastPage = p);
  };
  return {
    size,
    name: path,
    read(offset, length) {
      if (offset + length > size) throw new StateBocError(`${path}: truncated: need ${offset + length} bytes, have ${size}`);
      const n = Math.floor(offset / pageBytes);
      const at = offset - n * pageBytes;
      if (at + length <= pageBytes) return page(n).subarray(at, at + length);
      const out = Buffer.allocUnsafe(length);
      for (let done = 0; done < length; ) {
        const o = offset + done;
        const pn = Math.floor(o / pageBytes);
        const pat = o - pn * pageBytes;
        const chunk = page(pn).subarray(pat, Math.min(pat + length - done, pageBytes));
        out.set(chunk, done);
        done += chunk.length;
      }
      return out;
    },
    close() {
      pages.clear();
      lastPage = undefined;
      closeSync(fd);
    },
  };
}

/** One cell as serialized: data bytes (the last may hold the completion tag), bit length, references. */
export type CellView = { bits: number; data: Uint8Array; refs: number[]; special: number; levelMask: number };

const MAGIC_GENERIC = 0xb5ee9c72;
const MAGIC_INDEXED = 0x68ff65f3;
const MAGIC_INDEXED_CRC = 0xacc3a728;
const STRIDE = 16;

/**
 * A BoC read by position. Cells are located through the BoC's index when it has one, else through
 * every 16th cell's offset found by one scan (done on the first access past the first cell). A BoC
 * with a CRC is checked once, by `verify()`.
 */
export class BocReader {
  readonly cellCount: number;
  readonly roots: number[];
  private readonly refSize: number;
  private readonly offBytes: number;
  private readonly dataStart: number;
  private readonly dataEnd: number;
  private readonly indexStart: number;
  private readonly cacheBits: boolean;
  private readonly hasCrc: boolean;
  private samples: Float64Array | undefined;

  constructor(readonly source: ByteSource) {
    let pos = 0;
    const uint = (n: number) => {
      const b = source.read(pos, n);
      pos += n;
      let v = 0;
      for (let k = 0; k < n; k++) v = v * 256 + b[k];
      return v;
    };
    const magic = uint(4);
    let hasIndex: boolean;
    if (magic === MAGIC_GENERIC) {
      const flags = uint(1);
      hasIndex = (flags & 0x80) !== 0;
      this.hasCrc = (flags & 0x40) !== 0;
      this.cacheBits = (flags & 0x20) !== 0;
      if (flags & 0x18) throw new StateBocError(`${source.name}: unsupported BoC flags 0x${flags.toString(16)}`);
      this.refSize = flags & 7;
    } else if (magic === MAGIC_INDEXED || magic === MAGIC_INDEXED_CRC) {
      hasIndex = true;
      this.hasCrc = magic === MAGIC_INDEXED_CRC;
      this.cacheBits = false;
      this.refSize = uint(1);
    } else {
      throw new StateBocError(`${source.name}: not a bag of cells (magic 0x${magic.toString(16).padStart(8, '0')})`);
    }
    if (this.refSize < 1 || this.refSize > 4) throw new StateBocError(`${source.name}: invalid reference size ${this.refSize}`);
    this.offBytes = uint(1);
    if (this.offBytes < 1 || this.offBytes > 8) throw new StateBocError(`${source.name}: invalid offset size ${this.offBytes}`);
    this.cellCount = uint(this.refSize);
    const rootCount = magic === MAGIC_GENERIC ? uint(this.refSize) : 1;
    const absent = uint(this.refSize);
    const totalSize = uint(this.offBytes);
    if (magic !== MAGIC_GENERIC) uint(this.refSize);
    if (absent !== 0) throw new StateBocError(`${source.name}: BoCs with absent cells are not supported`);
    if (rootCount < 1 || rootCount > this.cellCount) throw new StateBocError(`${source.name}: ${rootCount} roots of ${this.cellCount} cells`);
    this.roots = [];
    if (magic === MAGIC_GENERIC) for (let k = 0; k < rootCount; k++) this.roots.push(uint(this.refSize));
    else this.roots.push(0);
    for (const r of this.roots) if (r >= this.cellCount) throw new StateBocError(`${source.name}: root ${r} out of range`);
    this.indexStart = hasIndex ? pos : -1;
    if (hasIndex) pos += this.cellCount * this.offBytes;
    this.dataStart = pos;
    this.dataEnd = pos + totalSize;
    const end = this.dataEnd + (this.hasCrc ? 4 : 0);
    if (end > source.size) throw new StateBocError(`${source.name}: truncated: need ${end} bytes, have ${source.size}`);
    if (end < source.size) throw new StateBocError(`${source.name}: ${source.size - end} trailing bytes after the BoC`);
  }

  /** Checks the CRC32-C trailer, if the BoC has one (a pass over the whole BoC). */
  verify(): void {
    if (!this.hasCrc) return;
    let crc = ~0;
    const step = 1 << 20;
    for (let o = 0; o < this.dataEnd; o += step) crc = crc32cUpdate(crc, this.source.read(o, Math.min(step, this.dataEnd - o)));
    const t = this.source.read(this.dataEnd, 4);
    if ((~crc >>> 0) !== ((t[0] | (t[1] << 8) | (t[2] << 16) | (t[3] << 24)) >>> 0)) throw new StateBocError(`${this.source.name}: CRC32-C mismatch`);
  }

  cell(i: number): CellView {
    if (i < 0 || i >= this.cellCount) throw new StateBocError(`${this.source.name}: cell ${i} out of range`);
    const at = this.offsetOf(i);
    const c = this.parseAt(i, at);
    if (this.indexStart >= 0 && this.indexEntry(i) !== c.end - this.dataStart) {
      throw new StateBocError(`${this.source.name}: the index says cell ${i} ends at ${this.indexEntry(i)}, its header at ${c.end - this.dataStart}`);
    }
    return c.view;
  }

  private offsetOf(i: number): number {
    if (i === 0) return this.dataStart;
    if (this.indexStart >= 0) return this.dataStart + this.indexEntry(i - 1);
    const samples = this.samples ?? this.scan();
    let p = samples[Math.floor(i / STRIDE)];
    for (let j = i - (i % STRIDE); j < i; j++) p = this.parseAt(j, p).end;
    return p;
  }

  /** The index's entry of cell i: where it ends, relative to the cell data. */
  private indexEntry(i: number): number {
    const b = this.source.read(this.indexStart + i * this.offBytes, this.offBytes);
    let v = 0;
    for (let k = 0; k < this.offBytes; k++) v = v * 256 + b[k];
    return this.cacheBits ? Math.floor(v / 2) : v;
  }

  /** One pass over the cells: every 16th cell's offset. */
  private scan(): Float64Array {
    const samples = new Float64Array(Math.ceil(this.cellCount / STRIDE));
    let p = this.dataStart;
    for (let i = 0; i < this.cellCount; i++) {
      if (i % STRIDE === 0) samples[i / STRIDE] = p;
      p = this.skipAt(i, p);
    }
    if (p !== this.dataEnd) throw new StateBocError(`${this.source.name}: cell data is ${this.dataEnd - this.dataStart} bytes but cells use ${p - this.dataStart}`);
    this.samples = samples;
    return samples;
  }

  /** Where cell i, starting at p, ends (its header only is read). */
  private skipAt(i: number, p: number): number {
    const h = this.source.read(p, 2);
    const d1 = h[0];
    const d2 = h[1];
    const refs = d1 & 7;
    if (refs > 4) throw new StateBocError(`${this.source.name}: cell ${i} has ${refs} references`);
    const hashes = d1 & 16 ? (popcount(d1 >> 5) + 1) * 34 : 0;
    const end = p + 2 + hashes + (d2 >> 1) + (d2 & 1) + refs * this.refSize;
    if (end > this.dataEnd) throw new StateBocError(`${this.source.name}: cell ${i} runs past the end of cell data`);
    return end;
  }

  private parseAt(i: number, p: number): { view: CellView; end: number } {
    const h = this.source.read(p, 2);
    const d1 = h[0];
    const d2 = h[1];
    const refCount = d1 & 7;
    if (refCount > 4) throw new StateBocError(`${this.source.name}: cell ${i} has ${refCount} references`);
    const levelMask = d1 >> 5;
    let q = p + 2 + (d1 & 16 ? (popcount(levelMask) + 1) * 34 : 0);
    const len = (d2 >> 1) + (d2 & 1);
    if (q + len + refCount * this.refSize > this.dataEnd) throw new StateBocError(`${this.source.name}: cell ${i} runs past the end of cell data`);
    const data = this.source.read(q, len);
    let bits = len * 8;
    if (d2 & 1) {
      const last = data[len - 1];
      if (last === 0) throw new StateBocError(`${this.source.name}: cell ${i}: missing completion tag`);
      bits -= ctz8(last) + 1;
    }
    const exotic = (d1 & 8) !== 0;
    if (exotic && bits < 8) throw new StateBocError(`${this.source.name}: cell ${i}: exotic cell without a type byte`);
    q += len;
    const rb = this.source.read(q, refCount * this.refSize);
    const refs: number[] = [];
    for (let k = 0; k < refCount; k++) {
      let ref = 0;
      for (let b = 0; b < this.refSize; b++) ref = ref * 256 + rb[k * this.refSize + b];
      if (ref <= i || ref >= this.cellCount) throw new StateBocError(`${this.source.name}: cell ${i} refers to cell ${ref}: references must point forward and within ${this.cellCount} cells`);
      refs.push(ref);
    }
    return { view: { bits, data, refs, special: exotic ? data[0] : 0, levelMask }, end: q + refCount * this.refSize };
  }
}

/** A cell's bits and references, read in order. */
class Bits {
  private pos = 0;
  private ref = 0;
  constructor(
    private readonly c: CellView,
    private readonly where: string,
  ) {}

  bit(): number {
    if (this.pos >= this.c.bits) this.fail('no bits left');
    const v = (this.c.data[this.pos >> 3] >> (7 - (this.pos & 7))) & 1;
    this.pos++;
    return v;
  }

  /** Up to 32 bits, unsigned. */
  uint(n: number): number {
    if (this.pos + n > this.c.bits) this.fail(`${n} bits wanted, ${this.c.bits - this.pos} left`);
    let v = 0;
    for (let k = 0; k < n; k++) {
      v = v * 2 + ((this.c.data[this.pos >> 3] >> (7 - (this.pos & 7))) & 1);
      this.pos++;
    }
    return v;
  }

  big(n: number): bigint {
    let v = 0n;
    while (n > 0) {
      const k = n > 32 ? 32 : n;
      v = (v << BigInt(k)) | BigInt(this.uint(k));
      n -= k;
    }
    return v;
  }

  bytes(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    for (let k = 0; k < n; k++) out[k] = this.uint(8);
    return out;
  }

  skip(n: number): void {
    if (this.pos + n > this.c.bits) this.fail(`${n} bits to skip, ${this.c.bits - this.pos} left`);
    this.pos += n;
  }

  nextRef(): number {
    if (this.ref >= this.c.refs.length) this.fail('no references left');
    return this.c.refs[this.ref++];
  }

  fail(why: string): never {
    throw new StateBocError(`${this.where}: ${why}`);
  }
}

/** What a ShardStateUnsplit says of itself, and where its accounts and McStateExtra are. */
export type ShardStateHead = {
  workchain: number;
  /** The 64-bit shard id with its tag bit (unsigned). */
  shard: bigint;
  seqno: number;
  genUtime: number;
  /** The root edge of ShardAccounts; null when there are none. */
  accountsRoot: number | null;
  /** The McStateExtra cell of a masterchain state. */
  custom: number | null;
};

/** `workchain:SHARD:seqno`, as the liteserver path labels a block. */
export function stateLabel(h: { workchain: number; shard: bigint; seqno: number }): string {
  return `${h.workchain}:${h.shard.toString(16).padStart(16, '0')}:${h.seqno}`;
}

/**
 * shard_state#9023afe2 global_id:int32 shard_id:ShardIdent seq_no:uint32 vert_seq_no:# gen_utime:uint32
 *   gen_lt:uint64 min_ref_mc_seqno:uint32 out_msg_queue_info:^OutMsgQueueInfo before_split:(## 1)
 *   accounts:^ShardAccounts ^[ … ] custom:(Maybe ^McStateExtra) = ShardStateUnsplit;
 * shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64 = ShardIdent;
 */
export function readShardStateHead(r: BocReader): ShardStateHead {
  const where = `${r.source.name}: ShardStateUnsplit`;
  const s = new Bits(r.cell(r.roots[0]), where);
  const tag = s.uint(32);
  if (tag === 0x5f327da5) s.fail('a split state (split_state#5f327da5): give each half as a file of its own');
  if (tag !== 0x9023afe2) s.fail(`not a ShardStateUnsplit (tag 0x${tag.toString(16)})`);
  s.skip(32);
  if (s.uint(2) !== 0) s.fail('bad ShardIdent tag');
  const pfxBits = s.uint(6);
  if (pfxBits > 60) s.fail(`shard prefix of ${pfxBits} bits`);
  const workchain = s.uint(32) | 0;
  const prefix = s.big(64);
  const seqno = s.uint(32);
  s.skip(32);
  const genUtime = s.uint(32);
  s.skip(64 + 32);
  s.nextRef();
  s.skip(1);
  const accounts = new Bits(r.cell(s.nextRef()), `${where}.accounts`);
  const accountsRoot = accounts.bit() ? accounts.nextRef() : null;
  s.nextRef();
  const custom = s.bit() ? s.nextRef() : null;
  return { workchain, shard: prefix | (1n << BigInt(63 - pfxBits)), seqno, genUtime, accountsRoot, custom };
}

/** One account of a state: its key, where its Account cell is, and its last transaction. */
export type StateAccountRef = { key: bigint; account: string; accountCell: number; lastTransLt: string; lastTransHash: string };

const KEY_BITS = 256;

/**
 * The accounts of ShardAccounts (`HashmapAugE 256 ShardAccount DepthBalanceInfo`) in key order,
 * `account_none` left out; with `after`, only keys above it (subtrees wholly at or below it are not
 * entered). Holds the path to the current leaf only.
 *
 *   ahm_edge label:(HmLabel ~l n) node:(HashmapAugNode m X Y);  ahmn_leaf extra:Y value:X;  ahmn_fork left:^ right:^ extra:Y
 *   depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection;  account_descr$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64
 */
export function* shardAccounts(r: BocReader, head: ShardStateHead, after?: bigint): Generator<StateAccountRef> {
  if (head.accountsRoot === null) return;
  const stack: { cell: number; prefix: bigint; len: number }[] = [{ cell: head.accountsRoot, prefix: 0n, len: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const s = new Bits(r.cell(node.cell), `${r.source.name}: ShardAccounts`);
    const m = KEY_BITS - node.len;
    let l: number;
    let label: bigint;
    const kind = s.bit() ? (s.bit() ? 'same' : 'long') : 'short';
    if (kind === 'short') {
      l = 0;
      while (s.bit()) l++;
      if (l > m) s.fail(`label of ${l} bits exceeds ${m}`);
      label = s.big(l);
    } else if (kind === 'long') {
      l = s.uint(lenBits(m));
      if (l > m) s.fail(`label of ${l} bits exceeds ${m}`);
      label = s.big(l);
    } else {
      const v = s.bit();
      l = s.uint(lenBits(m));
      if (l > m) s.fail(`label of ${l} bits exceeds ${m}`);
      label = v ? (1n << BigInt(l)) - 1n : 0n;
    }
    const prefix = (node.prefix << BigInt(l)) | label;
    const len = node.len + l;
    const rest = BigInt(KEY_BITS - len);
    if (after !== undefined && ((prefix + 1n) << rest) - 1n <= after) continue;
    if (len < KEY_BITS) {
      const [left, right] = [s.nextRef(), s.nextRef()];
      stack.push({ cell: right, prefix: (prefix << 1n) | 1n, len: len + 1 }, { cell: left, prefix: prefix << 1n, len: len + 1 });
      continue;
    }
    // extra: split_depth:(#<= 30) balance: grams:(VarUInteger 16) other:(HashmapE 32 (VarUInteger 32))
    s.skip(5);
    s.skip(s.uint(4) * 8);
    if (s.bit()) s.nextRef();
    const accountCell = s.nextRef();
    const lastTransHash = s.bytes(32).toString('base64');
    const lastTransLt = s.big(64).toString();
    // account_none$0: an address the dictionary keeps without an account.
    const account = r.cell(accountCell);
    if (account.bits === 0 || (account.data[0] & 0x80) === 0) continue;
    yield { key: prefix, account: `${head.workchain}:${prefix.toString(16).padStart(64, '0').toUpperCase()}`, accountCell, lastTransLt, lastTransHash };
  }
}

/** Bits of `#<= m`. */
function lenBits(m: number): number {
  return 32 - Math.clz32(m);
}

/** A single-root BoC of cell `root` and every cell below it. */
export function subtreeBoc(r: BocReader, root: number): Uint8Array {
  const views = new Map<number, CellView>();
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (views.has(i)) continue;
    const v = r.cell(i);
    views.set(i, v);
    for (const ref of v.refs) if (!views.has(ref)) stack.push(ref);
  }
  // The BoC's order is topological (references point forward): kept, renumbered.
  const order = [...views.keys()].sort((a, b) => a - b);
  const at = new Map(order.map((i, k) => [i, k]));
  const cells: RawCell[] = order.map((i) => {
    const v = views.get(i)!;
    return { data: v.data, bits: v.bits, refs: v.refs.map((ref) => at.get(ref)!), special: v.special, levelMask: v.levelMask };
  });
  return writeBoc(cells, [0]);
}

/** The shard blocks a masterchain state's McStateExtra names (`masterchain_state_extra#cc26 shard_hashes:ShardHashes …`). */
export function stateShardTops(r: BocReader, head: ShardStateHead): ShardDescr[] {
  if (head.custom === null) throw new StateBocError(`${r.source.name}: a masterchain state without McStateExtra`);
  const cells = parseBoc(subtreeBoc(r, head.custom));
  const s = new Slice(cells, cells.roots[0], 'McStateExtra');
  if (s.loadUint(16) !== 0xcc26) s.fail('not a McStateExtra (tag 0xcc26)');
  return loadShardHashes(s);
}

/** CRC-32C slicing-by-4 tables (as packages/block's crc32c, which takes a whole buffer). */
const CRC_TABLE = (() => {
  const t = new Int32Array(4 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) for (let k = 1; k < 4; k++) t[k * 256 + i] = (t[(k - 1) * 256 + i] >>> 8) ^ t[t[(k - 1) * 256 + i] & 0xff];
  return t;
})();

/** CRC-32C continued over `bytes` (start with ~0, finish with ~crc >>> 0). */
function crc32cUpdate(crc: number, bytes: Uint8Array): number {
  const T = CRC_TABLE;
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    crc ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    crc = T[768 + (crc & 0xff)] ^ T[512 + ((crc >>> 8) & 0xff)] ^ T[256 + ((crc >>> 16) & 0xff)] ^ T[crc >>> 24];
  }
  for (; i < bytes.length; i++) crc = T[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return crc;
}

function popcount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

function ctz8(x: number): number {
  let n = 0;
  while ((x & 1) === 0) {
    x >>= 1;
    n++;
  }
  return n;
}
