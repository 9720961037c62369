import { rethrowBugs } from '@tonstream/errors';
import { readWatermarks, type Store, type TracesWatermark, type Watermark } from '@tonstream/store';
import { higherWatermarks, type WatermarkFloor, type Watermarks } from './watermark-floor.js';

/** How long a read watermark is reused: requests in a burst share one query. */
const MAX_AGE_MS = 250;

export type IndexState = {
  /** The stored-up-to watermark (null before anything is indexed), at most MAX_AGE_MS old. */
  watermark(): Promise<Watermark | null>;
  /** The traces watermark (trace-progress.ts; null before the tracer's first batch is stored), read with the other. */
  traces(): Promise<TracesWatermark | null>;
  /** The history floor (packages/store history.ts; null: none, every block up to the watermark is served), read with them. */
  floor(): Promise<number | null>;
};

/**
 * `floor`: the highest watermarks the other API processes served (watermark-floor.ts). @default none
 * `now`: the clock of the reuse. @default Date.now
 */
export type IndexStateOptions = { floor?: WatermarkFloor; now?: () => number };

/**
 * The watermarks as the API sees them: read from ClickHouse in one query, cached briefly, shared by
 * concurrent requests; never lower than what this process, or through `floor` any API process, has
 * served. In cluster mode each process reads the ClickHouse node it talks to and the watermark tables
 * replicate asynchronously, so one node's may trail another's; the rows under a watermark are on
 * every replica before it moves (quorum inserts), so serving the higher one is safe. A floor that
 * cannot answer is left out: the process's own maximum still holds.
 */
export function createIndexState(store: Store, { floor, now = Date.now }: IndexStateOptions = {}): IndexState {
  let highest: Watermarks = { index: null, traces: null };
  // The history floor only moves down: the lowest read is the newest (a lagging replica's is higher).
  let lowestFloor: number | null = null;
  const readOnce = async (): Promise<Watermarks & { floor: number | null }> => {
    const read = await readWatermarks(store);
    if (read.floor !== null && (lowestFloor === null || read.floor < lowestFloor)) lowestFloor = read.floor;
    let seen = higherWatermarks(highest, read);
    if (floor) {
      try {
        seen = higherWatermarks(seen, await floor.raise(seen));
      } catch (err) {
        rethrowBugs(err);
      }
    }
    // Reads overlap (a slow one outlives its reuse): whichever ends last never lowers what an earlier one gave.
    highest = higherWatermarks(highest, seen);
    return { ...highest, floor: lowestFloor };
  };
  let cached: { at: number; value: Promise<Watermarks & { floor: number | null }> } | undefined;
  const read = () => {
    const t = now();
    if (!cached || t - cached.at > MAX_AGE_MS) {
      const value = readOnce();
      cached = { at: t, value };
      // A failed read is not kept: the next request tries again.
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
    }
    return cached.value;
  };
  return {
    watermark: () => read().then((w) => w.index),
    traces: () => read().then((w) => w.traces),
    floor: () => read().then((w) => w.floor),
  };
}
