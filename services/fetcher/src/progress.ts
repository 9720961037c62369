/** Rates and ETA for the progress log line, over the interval since the previous report. */

export type ProgressReport = {
  mc_seqno: number;
  target_seqno: number;
  mc_blocks_per_s: number;
  blocks_per_s: number;
  account_states_per_s: number;
  mb_per_s: number;
  /** Touched accounts published without a state (the liteservers no longer had it). */
  account_states_missing: number;
  remaining: number;
  /** Seconds until `target_seqno` at the current masterchain rate; null when no progress was made. */
  eta_s: number | null;
};

export type Progress = {
  add(mcSeqno: number, blocks: number, accountStates: number, bytes: number, missingStates?: number): void;
  /** Rates since the previous report. */
  report(targetSeqno: number): ProgressReport;
  /** Rates since the start, and how long it ran. */
  total(targetSeqno: number): ProgressReport & { elapsed_s: number; mc_blocks: number };
};

type Window = { since: number; mc: number; blocks: number; states: number; bytes: number; missing: number };

export function createProgress(now: () => number = Date.now): Progress {
  const fresh = (): Window => ({ since: now(), mc: 0, blocks: 0, states: 0, bytes: 0, missing: 0 });
  let win = fresh();
  const all = fresh();
  let last = 0;
  const round = (x: number) => Math.round(x * 100) / 100;
  const rates = (w: Window, target: number): ProgressReport => {
    const secs = Math.max((now() - w.since) / 1000, 1e-3);
    const rate = w.mc / secs;
    const remaining = Math.max(0, target - last);
    return {
      mc_seqno: last,
      target_seqno: target,
      mc_blocks_per_s: round(rate),
      blocks_per_s: round(w.blocks / secs),
      account_states_per_s: round(w.states / secs),
      mb_per_s: round(w.bytes / secs / 1e6),
      account_states_missing: w.missing,
      remaining,
      eta_s: remaining === 0 ? 0 : rate > 0 ? Math.round(remaining / rate) : null,
    };
  };
  return {
    add(mcSeqno, b, s, by, missing = 0) {
      for (const w of [win, all]) {
        w.mc++;
        w.blocks += b;
        w.states += s;
        w.bytes += by;
        w.missing += missing;
      }
      last = mcSeqno;
    },
    report(target) {
      const r = rates(win, target);
      win = fresh();
      return r;
    },
    total(target) {
      return { ...rates(all, target), elapsed_s: round((now() - all.since) / 1000), mc_blocks: all.mc };
    },
  };
}
