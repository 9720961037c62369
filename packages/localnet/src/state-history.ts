/**
 * Account states of the last rounds, for `getAccountState(address, atBlock)`. Per account, one
 * version per round that touched it: the ShardAccount (base64, as the emulator returned it) before
 * the round's first transaction and after its last. A version's `before` is the previous version's
 * `after` string, so only the oldest one costs memory of its own.
 */
type Version = { mcSeqno: number; before: string; after: string };

export type StateHistory = {
  record(mcSeqno: number, account: string, before: string, after: string): void;
  /** The state after round `mcSeqno`: a ShardAccount, or 'current' if the account has not changed since. */
  at(account: string, mcSeqno: number): string | 'current';
  /** Forgets versions of rounds up to `mcSeqno`; queries about earlier rounds become unanswerable. */
  evictThrough(mcSeqno: number): void;
  oldestMcSeqno(): number | undefined;
};

export function createStateHistory(): StateHistory {
  const versions = new Map<string, Version[]>();
  const touched = new Map<number, Set<string>>();
  return {
    record(mcSeqno, account, before, after) {
      let list = versions.get(account);
      if (!list) versions.set(account, (list = []));
      const last = list[list.length - 1];
      if (last && last.mcSeqno === mcSeqno) last.after = after;
      else list.push({ mcSeqno, before, after });
      let set = touched.get(mcSeqno);
      if (!set) touched.set(mcSeqno, (set = new Set()));
      set.add(account);
    },
    at(account, mcSeqno) {
      const list = versions.get(account);
      if (!list) return 'current';
      for (let i = list.length - 1; i >= 0; i--) if (list[i].mcSeqno <= mcSeqno) return list[i].after;
      return list[0].before;
    },
    evictThrough(mcSeqno) {
      for (const [round, accounts] of touched) {
        if (round > mcSeqno) continue;
        for (const account of accounts) {
          const list = versions.get(account);
          if (!list) continue;
          while (list.length > 0 && list[0].mcSeqno <= mcSeqno) list.shift();
          if (list.length === 0) versions.delete(account);
        }
        touched.delete(round);
      }
    },
    oldestMcSeqno() {
      let min: number | undefined;
      for (const round of touched.keys()) if (min === undefined || round < min) min = round;
      return min;
    },
  };
}
