/**
 * Answers shared per watermark: for an endpoint whose answer depends only on its parameters and the
 * watermark, one computation per (watermark, parameters) serves every request, concurrent or later,
 * until the watermark moves (then the whole cache is dropped). A failed computation is not kept.
 */
export type WatermarkCache = {
  get(watermark: number | null, key: string, compute: () => Promise<unknown>): Promise<unknown>;
};

/** At most `maxEntries` answers per watermark; past that the cache starts over. */
export function createWatermarkCache(maxEntries = 1_000): WatermarkCache {
  let at: number | null = null;
  let answers = new Map<string, Promise<unknown>>();
  return {
    get(watermark, key, compute) {
      if (watermark !== at || answers.size >= maxEntries) {
        at = watermark;
        answers = new Map();
      }
      const found = answers.get(key);
      if (found) return found;
      const mine = answers;
      const answer = compute();
      mine.set(key, answer);
      answer.catch(() => mine.delete(key));
      return answer;
    },
  };
}
