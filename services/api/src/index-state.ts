import { readWatermark, type Store, type Watermark } from '@tonstream/store';

/** How long a read watermark is reused: requests in a burst share one query. */
const MAX_AGE_MS = 250;

export type IndexState = {
  /** The stored-up-to watermark (null before anything is indexed), at most MAX_AGE_MS old. */
  watermark(): Promise<Watermark | null>;
};

/** The watermark as the API sees it: read from ClickHouse, cached briefly, shared by concurrent requests. */
export function createIndexState(store: Store, now: () => number = Date.now): IndexState {
  let cached: { at: number; value: Promise<Watermark | null> } | undefined;
  return {
    watermark() {
      const t = now();
      if (!cached || t - cached.at > MAX_AGE_MS) {
        const value = readWatermark(store);
        cached = { at: t, value };
        // A failed read is not kept: the next request tries again.
        value.catch(() => {
          if (cached?.value === value) cached = undefined;
        });
      }
      return cached.value;
    },
  };
}
