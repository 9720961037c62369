/**
 * `compute`, one at a time and at most once per `reuseMs`: calls while it runs, and for `reuseMs`
 * after it answered, share its result. A failure is not kept: the next call computes again.
 */
export function reusedFor<T>(reuseMs: number, compute: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let last: { value: Promise<T>; answeredAt?: number } | undefined;
  return () => {
    if (last && (last.answeredAt === undefined || now() - last.answeredAt < reuseMs)) return last.value;
    const entry: { value: Promise<T>; answeredAt?: number } = { value: compute() };
    last = entry;
    entry.value.then(
      () => (entry.answeredAt = now()),
      () => {
        if (last === entry) last = undefined;
      },
    );
    return entry.value;
  };
}
