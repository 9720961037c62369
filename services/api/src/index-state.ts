import { readWatermarks, type Store, type TracesWatermark, type Watermark } from '@tonstream/store';

/** How long a read watermark is reused: requests in a burst share one query. */
const MAX_AGE_MS = 250;

export type IndexState = {
  /** The stored-up-to watermark (null before anything is indexed), at most MAX_AGE_MS old. */
  watermark(): Promise<Watermark | null>;
  /** The traces watermark (trace-progress.ts; null before the tracer's first batch is stored), read with the other. */
  traces(): Promise<TracesWatermark | null>;
};

/** The watermarks as the API sees them: read from ClickHouse in one query, cached briefly, shared by concurrent requests. */
export function createIndexState(store: Store, now: () => number = Date.now): IndexState {
  let cached: { at: number; value: ReturnType<typeof readWatermarks> } | undefined;
  const read = () => {
    const t = now();
    if (!cached || t - cached.at > MAX_AGE_MS) {
      const value = readWatermarks(store);
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
  };
}
