/**
 * Answers shared per watermark: for an endpoint whose answer depends only on its parameters and the
 * watermark, one computation per (watermark, parameters) serves every request, concurrent or later,
 * until the watermark moves (then the whole cache is dropped). A failed computation is not kept.
 */
export type WatermarkCache<T> = {
  get(watermark: number | null, key: string, compute: () => Promise<T>): Promise<T>;
  /** The answer computed for (watermark, key) if it is done: nothing to wait for. */
  settled(watermark: number | null, key: string): T | undefined;
};

/** At most `maxEntries` answers per watermark; past that the cache starts over. */
export function createWatermarkCache<T>(maxEntries = 1_000): WatermarkCache<T> {
  let at: number | null = null;
  let answers = new Map<string, Promise<T>>();
  let done = new Map<string, T>();
  return {
    get(watermark, key, compute) {
      if (watermark !== at || answers.size >= maxEntries) {
        at = watermark;
        answers = new Map();
        done = new Map();
      }
      const found = answers.get(key);
      if (found) return found;
      const [mine, finished] = [answers, done];
      const answer = compute();
      mine.set(key, answer);
      answer.then(
        (value) => void finished.set(key, value),
        () => mine.delete(key),
      );
      return answer;
    },
    settled: (watermark, key) => (watermark === at ? done.get(key) : undefined),
  };
}
