/**
 * Runs a round every `intervalMs`, one at a time: a round that overruns its slot is followed at once
 * by the next (no burst to catch up on missed slots), and `stop()` waits for the round in flight.
 */
export type RoundLoop = {
  start(): void;
  /** Stops scheduling; resolves once the round in flight (if any) has finished. */
  stop(): Promise<void>;
};

export type RoundLoopOptions = {
  intervalMs: number;
  round: () => Promise<void>;
  /** A round that threw; the loop goes on. */
  onError: (err: unknown) => void;
};

export function createRoundLoop(o: RoundLoopOptions): RoundLoop {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  let next = 0;

  const schedule = () => {
    if (stopped) return;
    const now = Date.now();
    next = Math.max(next + o.intervalMs, now);
    // Behind schedule: the next round starts now (setTimeout would add a millisecond or more).
    if (next === now) tick();
    else timer = setTimeout(tick, next - now);
  };
  const tick = () => {
    timer = undefined;
    inFlight = o.round().then(
      () => undefined,
      (err: unknown) => o.onError(err),
    );
    void inFlight.then(() => {
      inFlight = undefined;
      schedule();
    });
  };

  return {
    start() {
      if (stopped || timer || inFlight) return;
      next = Date.now();
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
