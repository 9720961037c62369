/** How a backfill is cut into lanes (pure). */

/** One lane: the masterchain seqnos [from .. to] it owns, and the prefix of its topics, groups and Redis keys. */
export type Lane = { from: number; to: number; prefix: string };

/**
 * [from .. to] cut into `lanes` contiguous ranges of near-equal size (the lower ones one longer when it
 * does not divide). The prefix names the range, so a run started again with the same range finds its
 * lanes' checkpoints, consumer offsets and tracer state.
 */
export function splitRange(from: number, to: number, lanes: number, basePrefix: string): Lane[] {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) throw new RangeError(`bad range ${from}..${to}`);
  const count = Math.min(lanes, to - from + 1);
  const size = Math.floor((to - from + 1) / count);
  const longer = (to - from + 1) % count;
  const out: Lane[] = [];
  for (let i = 0, start = from; i < count; i++) {
    const end = start + size - 1 + (i < longer ? 1 : 0);
    out.push({ from: start, to: end, prefix: `${basePrefix}history-${start}-${end}.` });
    start = end + 1;
  }
  return out;
}
