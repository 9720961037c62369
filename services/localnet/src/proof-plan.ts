/**
 * Merkle proofs as a real liteserver cuts them: the cells a reader needs stay, every other
 * reference becomes a pruned branch carrying its hash, so the proof's root hash is the hash of the
 * original tree. A plan says, cell by cell, how far down to keep.
 */
import { Cell, prune } from '@tonstream/block';

/** All of the subtree, none of it (a pruned branch), or the cell itself with a plan per reference. */
export type ProofPlan = 'all' | 'prune' | { refs: (cell: Cell) => ProofPlan[] };

/** Keeps the listed references (by index) with their plans; prunes the others. */
export function keepRefs(kept: Record<number, ProofPlan>): ProofPlan {
  return { refs: (cell) => cell.refs.map((_, i) => kept[i] ?? 'prune') };
}

/** A copy of `cell` cut down to `plan`; its level-0 hash is the original's. */
export function applyPlan(cell: Cell, plan: ProofPlan): Cell {
  if (plan === 'all') return cell;
  // A cell that already hides something (level > 0, e.g. the pruned sides of a state update) stays.
  if (plan === 'prune') return cell.level === 0 ? prune(cell) : cell;
  const plans = plan.refs(cell);
  const refs = cell.refs.map((r, i) => applyPlan(r, plans[i] ?? 'prune'));
  if (refs.every((r, i) => r === cell.refs[i])) return cell;
  return new Cell(cell.data, cell.bits, refs, cell.type);
}

/** Keeps every cell except those whose hash is in `hidden`, which are pruned. */
export function hideCells(hidden: ReadonlySet<string>): ProofPlan {
  const plan: ProofPlan = { refs: (cell) => cell.refs.map((r) => (hidden.has(r.hashHex()) ? 'prune' : plan)) };
  return plan;
}

export function bitAt(cell: Cell, i: number): number {
  return (cell.data[i >> 3] >> (7 - (i & 7))) & 1;
}

function uintAt(cell: Cell, from: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 2 + bitAt(cell, from + i);
  return v;
}

/**
 * hml_short$0 {m:#} {n:#} len:(Unary ~n) {n <= m} s:(n * Bit) = HmLabel ~n m;
 * hml_long$10 {m:#} n:(#<= m) s:(n * Bit) = HmLabel ~n m;
 * hml_same$11 {m:#} v:Bit n:(#<= m) = HmLabel ~n m;
 * The label of a Hashmap edge cell with `m` key bits left, as a '0'/'1' string, and the bit after it.
 */
export function readLabel(cell: Cell, m: number): { label: string; end: number } {
  const width = Math.ceil(Math.log2(m + 1));
  let pos = 0;
  if (bitAt(cell, pos++) === 0) {
    let n = 0;
    while (bitAt(cell, pos++) === 1) n++;
    let label = '';
    for (let i = 0; i < n; i++) label += bitAt(cell, pos++);
    return { label, end: pos };
  }
  if (bitAt(cell, pos++) === 0) {
    const n = uintAt(cell, pos, width);
    pos += width;
    let label = '';
    for (let i = 0; i < n; i++) label += bitAt(cell, pos++);
    return { label, end: pos };
  }
  const v = String(bitAt(cell, pos++));
  const n = uintAt(cell, pos, width);
  return { label: v.repeat(n), end: pos + width };
}

export function keyBits(key: bigint, n: number): string {
  return BigInt.asUintN(n, key).toString(2).padStart(n, '0');
}

/**
 * The plan for the root edge cell of a `Hashmap n X` that keeps the paths to `keys` (bit strings of
 * length n) and applies `leaf` to the references of each leaf found; other branches are pruned.
 */
export function hashmapPlan(n: number, keys: string[], leaf: ProofPlan): ProofPlan {
  return {
    refs: (cell) => {
      const { label } = readLabel(cell, n);
      const rest = keys.filter((k) => k.startsWith(label)).map((k) => k.slice(label.length));
      const m = n - label.length;
      if (m === 0) return cell.refs.map(() => (rest.length > 0 ? leaf : 'prune'));
      return [0, 1].map((bit) => {
        const side = rest.filter((k) => k[0] === String(bit)).map((k) => k.slice(1));
        return side.length > 0 ? hashmapPlan(m - 1, side, leaf) : 'prune';
      });
    },
  };
}

/** The leaf cell of key `key` (a bit string) in the Hashmap whose root edge cell is `root`, with the bit offset of its value. */
export function hashmapLeaf(root: Cell, n: number, key: string): { cell: Cell; valueAt: number } | undefined {
  let cell = root;
  let m = n;
  let rest = key;
  for (;;) {
    const { label, end } = readLabel(cell, m);
    if (!rest.startsWith(label)) return undefined;
    rest = rest.slice(label.length);
    m -= label.length;
    if (m === 0) return { cell, valueAt: end };
    cell = cell.refs[Number(rest[0])];
    rest = rest.slice(1);
    m -= 1;
  }
}
