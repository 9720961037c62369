/**
 * Which externals get emulated (docs/traces-and-actions.md §5.1, toncenter's ExternalMessageAdmission):
 * one emulation per normalized hash while it is being or was recently emulated, and at most `rate`
 * per destination per `windowMs`, so a flood at one contract cannot starve the others.
 */
export type AdmissionDecision = 'admit' | 'duplicate' | 'rate_limited';

export type Admission = {
  admit(hashNorm: string, destination: string, nowMs: number): AdmissionDecision;
  /** Lets the same external in again (e.g. its emulation failed for a reason worth retrying). */
  forget(hashNorm: string): void;
};

export type AdmissionOptions = { rate: number; windowMs: number; /** How long a hash_norm counts as recent. */ dedupeMs: number };

export function createAdmission({ rate, windowMs, dedupeMs }: AdmissionOptions): Admission {
  const seen = new Map<string, number>();
  const byDestination = new Map<string, number[]>();
  let lastPrune = 0;

  // Entries are in insertion (= time) order: expired ones are at the front.
  const prune = (now: number) => {
    if (now - lastPrune < 1_000) return;
    lastPrune = now;
    for (const [h, at] of seen) {
      if (now - at < dedupeMs) break;
      seen.delete(h);
    }
    for (const [d, times] of byDestination) if (times[times.length - 1] <= now - windowMs) byDestination.delete(d);
  };

  return {
    admit(hashNorm, destination, now) {
      prune(now);
      const at = seen.get(hashNorm);
      if (at !== undefined && now - at < dedupeMs) return 'duplicate';
      const times = (byDestination.get(destination) ?? []).filter((t) => t > now - windowMs);
      if (times.length >= rate) {
        byDestination.set(destination, times);
        return 'rate_limited';
      }
      times.push(now);
      byDestination.set(destination, times);
      seen.delete(hashNorm);
      seen.set(hashNorm, now);
      return 'admit';
    },
    forget(hashNorm) {
      seen.delete(hashNorm);
    },
  };
}
