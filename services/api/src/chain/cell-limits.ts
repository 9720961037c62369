/**
 * Bounds on the cells a request hands the API, or makes it read from the liteserver. Two costs
 * grow with them: @ton/core hashes every cell of a BoC it loads (30 to 60 µs a cell here, so
 * 200,000 cells in a 2 MB body hold the event loop for seconds), and any walk without a memo
 * follows a shared cell once per path to it, so a DAG of 40 cells each pointing twice to the next
 * is 2^40 nodes to such a walk while its BoC is a few hundred bytes. Both are checked here on
 * @tonstream/block's table of the BoC (no hashing, one pass) before @ton/core sees it.
 */
import { Cell } from '@ton/core';
import { type CellTable, parseBoc } from '@tonstream/block';

export type BocLimits = {
  bytes: number;
  /** Cells of the BoC (each stored cell once). */
  cells: number;
  /** Nodes of the trees the roots unfold into, a shared cell counted at every path to it. @default no limit */
  unfolded?: number;
};

/**
 * A BoC sent by a client (messages, bodies, StateInit parts, stack cells): at most a message's
 * cells (config param 43, max_msg_cells = 2^13) and room for its bits (max_msg_bits = 2^21).
 */
export const REQUEST_BOC: BocLimits = { bytes: 512 * 1024, cells: 8192 };

/**
 * A get-method's result stack. Its tuples and cells are read and rendered by walks that take a
 * shared cell once per path (parseTuple into items, runGetMethod's `object` trees), so the
 * unfolded size is what is bounded: 16,384 nodes read and render in well under a second.
 */
export const RESULT_BOC: BocLimits = { bytes: 4 * 1024 * 1024, cells: 16_384, unfolded: 16_384 };

/** Cells a request's BoCs may still hold between them (a runGetMethod stack of many cells). */
export type CellBudget = { cells: number };

/** A BoC read: its roots, or why it is refused (`malformed`: not a bag of cells at all, else over a limit). */
export type BocRead = { roots: Cell[] } | { refused: string; malformed: boolean };

/** The roots of a BoC within `limits` (and within `budget`, which it draws down). */
export function readBoc(bytes: Uint8Array, limits: BocLimits, budget?: CellBudget): BocRead {
  const over = (refused: string): BocRead => ({ refused, malformed: false });
  const malformed = (err: unknown): BocRead => ({ refused: `not a bag of cells (${(err as Error).message})`, malformed: true });
  if (bytes.length > limits.bytes) return over(`${bytes.length} bytes, over the ${limits.bytes} read`);
  let table;
  try {
    table = parseBoc(bytes);
  } catch (err) {
    return malformed(err);
  }
  if (table.count > limits.cells) return over(`${table.count} cells, over the ${limits.cells} read`);
  if (budget) {
    if (table.count > budget.cells) return over(`${table.count} cells, over the ${budget.cells} left of the ${limits.cells} a request reads`);
    budget.cells -= table.count;
  }
  if (limits.unfolded !== undefined && unfoldedSize(table, limits.unfolded) > limits.unfolded) {
    return over(`cells that unfold into over ${limits.unfolded} (a shared cell counted at every path to it)`);
  }
  try {
    return { roots: Cell.fromBoc(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) };
  } catch (err) {
    return malformed(err);
  }
}

/** Nodes of the trees the roots of `table` unfold into, or `max + 1` once past `max`. References point forward, so one backward pass sums them. */
function unfoldedSize(table: CellTable, max: number): number {
  const size = new Float64Array(table.count);
  for (let i = table.count - 1; i >= 0; i--) {
    let n = 1;
    for (let k = 0; k < table.refCount[i]; k++) n += size[table.refs[i * 4 + k]];
    size[i] = Math.min(n, max + 1);
  }
  let total = 0;
  for (const root of table.roots) total = Math.min(total + size[root], max + 1);
  return total;
}

/** Distinct cells and their bits under `root` (root included), each counted once as TON counts storage (vm::CellStorageStat). */
export function distinctCells(root: Cell): { cells: number; bits: number } {
  const seen = new Set<string>();
  const pending = [root];
  let bits = 0;
  for (let c = pending.pop(); c !== undefined; c = pending.pop()) {
    const key = c.hash().toString('hex');
    if (seen.has(key)) continue;
    seen.add(key);
    bits += c.bits.length;
    pending.push(...c.refs);
  }
  return { cells: seen.size, bits };
}
