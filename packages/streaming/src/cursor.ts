/**
 * Resume cursors (reference §13). The streamer's output is two sequences, each a total order derived
 * only from the chain: `confirmed` events and `finalized` events, both ordered by masterchain seqno
 * and then by the event's index within that block (a deterministic order over the block's records).
 * Every streamer process, and every restart, produces the same two sequences; only how they
 * interleave depends on when the watermark moved. A cursor therefore names the event's own place in
 * its sequence and how far the other sequence had come (always a whole block: a block's events of one
 * stage are emitted together), so resuming replays exactly the events after both places.
 */
export type Stage = 'confirmed' | 'finalized';

/** A place in one stage's sequence: block `mc` up to and including event `index` (`Infinity`: the whole block). */
export type Position = { mc: number; index: number };

export type Cursor = { confirmed: Position; finalized: Position };

const WHOLE = Number.POSITIVE_INFINITY;

export function wholeBlock(mc: number): Position {
  return { mc, index: WHOLE };
}

export function isAfter(a: Position, b: Position): boolean {
  return a.mc > b.mc || (a.mc === b.mc && a.index > b.index);
}

const letter = (s: Stage) => (s === 'confirmed' ? 'c' : 'f');

/** `c<mc>.<index>f<mc>` for a confirmed event (then the finalized stage's last whole block), `f…c…` for a finalized one. */
export function formatCursor(stage: Stage, own: Position, otherWholeMc: number): string {
  const other: Stage = stage === 'confirmed' ? 'finalized' : 'confirmed';
  return `${letter(stage)}${own.mc}.${own.index}${letter(other)}${otherWholeMc}`;
}

const CURSOR = /^([cf])(\d{1,10})\.(\d{1,9})([cf])(-?\d{1,10})$/;

/** The two positions a cursor stands for, or null when the text is not a cursor this server issued. */
export function parseCursor(text: string): Cursor | null {
  const m = CURSOR.exec(text.trim());
  if (!m || m[1] === m[4]) return null;
  const own = { mc: Number(m[2]), index: Number(m[3]) };
  const other = wholeBlock(Number(m[5]));
  return m[1] === 'c' ? { confirmed: own, finalized: other } : { confirmed: other, finalized: own };
}
