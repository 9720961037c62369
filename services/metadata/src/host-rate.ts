/**
 * A per-host request rate: at most `perSecond` requests start per host per second, spaced evenly.
 * `take(host)` starts one if the host's next slot has come (the caller leaves the work queued
 * otherwise, so one slow or busy host never holds the worker's fetch slots). Hosts idle for a
 * minute are forgotten: the map stays as small as the set of recently asked hosts.
 */
export type HostRate = { take(host: string, now?: number): boolean; size(): number };

const FORGET_AFTER_MS = 60_000;

export function createHostRate(perSecond: number): HostRate {
  const spacingMs = 1000 / perSecond;
  const nextFree = new Map<string, number>();
  let lastSweep = 0;
  return {
    take(host, now = Date.now()) {
      if (now - lastSweep > FORGET_AFTER_MS) {
        for (const [h, at] of nextFree) if (at < now - FORGET_AFTER_MS) nextFree.delete(h);
        lastSweep = now;
      }
      const at = nextFree.get(host) ?? 0;
      if (at > now) return false;
      nextFree.set(host, now + spacingMs);
      return true;
    },
    size: () => nextFree.size,
  };
}
